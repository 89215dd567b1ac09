import { ConfigurationError } from "../api/errors";
import { checkApiUrl, isUuid } from "../api/guards";
import { DEFAULT_RATE_LIMIT, parseRateLimit, type RateLimit } from "../api/rateLimit";

/*
 * The settings both the providers and `getService` read: stack config first, then the
 * environment. Read at run time, never captured into a serialized provider, so credentials never
 * reach the state.
 */

/** Each setting: its stack config key and its environment variable. Stack config wins. */
export const CONFIG_SETTINGS = {
  apiUrl: { configKey: "dbcloud:apiUrl", envVar: "DBCLOUD_API_URL", required: true, secret: false },
  apiKeyId: { configKey: "dbcloud:apiKeyId", envVar: "DBCLOUD_API_KEY_ID", required: true, secret: false },
  apiKeySecret: {
    configKey: "dbcloud:apiKeySecret",
    envVar: "DBCLOUD_API_KEY_SECRET",
    required: true,
    secret: true,
  },
  organizationId: {
    configKey: "dbcloud:organizationId",
    envVar: "DBCLOUD_ORGANIZATION_ID",
    required: false,
    secret: false,
  },
  rateLimit: { configKey: "dbcloud:rateLimit", envVar: "DBCLOUD_RATE_LIMIT", required: false, secret: false },
} as const;

export type SettingName = keyof typeof CONFIG_SETTINGS;

export interface ResolvedConfig {
  apiUrl: string;
  keyId: string;
  keySecret: string;
  /** Default organization of resources that do not name one. */
  organizationId: string | undefined;
  /** Client-side budget, `false` when turned off. */
  rateLimit: RateLimit | false;
}

/** Where a value came from, for error messages. */
function source(name: SettingName): string {
  const s = CONFIG_SETTINGS[name];
  return `stack config ${s.configKey} or environment variable ${s.envVar}`;
}

/** Reads one setting: stack config first, then environment. Empty strings count as unset. */
export function readSetting(
  name: SettingName,
  stackConfig: (key: string) => string | undefined,
  env: Record<string, string | undefined>,
): string | undefined {
  const s = CONFIG_SETTINGS[name];
  const fromConfig = stackConfig(s.configKey);
  if (fromConfig !== undefined && fromConfig !== "") return fromConfig;
  const fromEnv = env[s.envVar];
  return fromEnv === "" ? undefined : fromEnv;
}

/**
 * Resolves the client configuration, listing every problem at once. Messages name both
 * the config key and the variable, and never echo the secret.
 */
export function resolveConfig(
  stackConfig: (key: string) => string | undefined,
  env: Record<string, string | undefined>,
): ResolvedConfig {
  const problems: string[] = [];
  const get = (name: SettingName) => readSetting(name, stackConfig, env);
  const missing = (name: SettingName, what: string, example: string) =>
    problems.push(
      `Missing ${what}: set ${source(name)} ` +
        `(pulumi config set ${CONFIG_SETTINGS[name].secret ? "--secret " : ""}${CONFIG_SETTINGS[name].configKey} ${example})`,
    );

  let apiUrl: string | undefined;
  const rawUrl = get("apiUrl");
  if (rawUrl === undefined) missing("apiUrl", "API URL", "https://api.example.com");
  else {
    const checked = checkApiUrl(rawUrl);
    if ("problems" in checked)
      problems.push(`Invalid API URL from ${source("apiUrl")}: ${checked.problems.join("; ")}`);
    else apiUrl = checked.url;
  }

  const keyId = get("apiKeyId");
  if (keyId === undefined) missing("apiKeyId", "API key ID", "<key id>");
  const keySecret = get("apiKeySecret");
  if (keySecret === undefined) missing("apiKeySecret", "API key secret", "<key secret>");

  const organizationId = get("organizationId");
  if (organizationId !== undefined && !isUuid(organizationId)) {
    problems.push(
      `Invalid organization id from ${source("organizationId")}: ${JSON.stringify(organizationId)} is not a uuid`,
    );
  }

  let rateLimit: RateLimit | false = DEFAULT_RATE_LIMIT;
  const rawLimit = get("rateLimit");
  if (rawLimit !== undefined) {
    try {
      rateLimit = parseRateLimit(rawLimit);
    } catch (e) {
      problems.push(`Invalid rate limit from ${source("rateLimit")}: ${(e as Error).message}`);
    }
  }

  if (problems.length) throw new ConfigurationError(problems);
  return { apiUrl: apiUrl!, keyId: keyId!, keySecret: keySecret!, organizationId, rateLimit };
}
