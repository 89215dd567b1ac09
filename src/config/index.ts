import { ApiClient } from "../api/client";
import { ConfigurationError, quoted } from "../api/errors";
import { checkApiUrl, isUuid } from "../api/guards";
import { DEFAULT_RATE_LIMIT, parseRateLimit, type RateLimit } from "../api/rateLimit";
import { DEFAULT_RETRY_POLICY } from "../api/retry";
import { parseStoreAddress, type StoreAddress } from "../api/storeAddress";

/* Read at run time by the providers and `getService`, never captured: credentials never reach the state. */

/** Each setting: its stack config key and its environment variable. Stack config wins. */
export const CONFIG_SETTINGS = {
  apiUrl: { configKey: "dbcloud:apiUrl", envVar: "DBCLOUD_API_URL", secret: false },
  apiKeyId: { configKey: "dbcloud:apiKeyId", envVar: "DBCLOUD_API_KEY_ID", secret: false },
  apiKeySecret: { configKey: "dbcloud:apiKeySecret", envVar: "DBCLOUD_API_KEY_SECRET", secret: true },
  organizationId: { configKey: "dbcloud:organizationId", envVar: "DBCLOUD_ORGANIZATION_ID", secret: false },
  rateLimit: { configKey: "dbcloud:rateLimit", envVar: "DBCLOUD_RATE_LIMIT", secret: false },
  // A store's URL may hold its password.
  rateLimitStore: { configKey: "dbcloud:rateLimitStore", envVar: "DBCLOUD_RATE_LIMIT_STORE", secret: true },
} as const;

export type SettingName = keyof typeof CONFIG_SETTINGS;
/** Stack config by full key (`dbcloud:apiUrl`), and the environment. */
type StackConfig = (key: string) => string | undefined;
type Env = Record<string, string | undefined>;

function source(name: SettingName): string {
  const s = CONFIG_SETTINGS[name];
  return `stack config ${s.configKey} or environment variable ${s.envVar}`;
}

/** Reads one setting: stack config first, then environment. Empty strings count as unset. */
export function readSetting(name: SettingName, stackConfig: StackConfig, env: Env): string | undefined {
  const s = CONFIG_SETTINGS[name];
  return stackConfig(s.configKey) || env[s.envVar] || undefined;
}

/** Resolves the client configuration, listing every problem at once and never echoing the secret. */
export function resolveConfig(stackConfig: StackConfig, env: Env) {
  const problems: string[] = [];
  const get = (name: SettingName) => readSetting(name, stackConfig, env);
  const missing = (name: SettingName, what: string, example: string) =>
    problems.push(
      `Missing ${what}: set ${source(name)} ` +
        `(pulumi config set ${CONFIG_SETTINGS[name].secret ? "--secret " : ""}${CONFIG_SETTINGS[name].configKey} ${example})`,
    );
  const invalid = (name: SettingName, what: string, why: string) =>
    problems.push(`Invalid ${what} from ${source(name)}: ${why}`);

  let apiUrl: string | undefined;
  const rawUrl = get("apiUrl");
  if (rawUrl === undefined) missing("apiUrl", "API URL", "https://api.example.com");
  else {
    const checked = checkApiUrl(rawUrl);
    if ("problems" in checked) invalid("apiUrl", "API URL", checked.problems.join("; "));
    else apiUrl = checked.url;
  }

  const keyId = get("apiKeyId");
  if (keyId === undefined) missing("apiKeyId", "API key ID", "<key id>");
  const keySecret = get("apiKeySecret");
  if (keySecret === undefined) missing("apiKeySecret", "API key secret", "<key secret>");

  const organizationId = get("organizationId");
  if (organizationId !== undefined && !isUuid(organizationId))
    invalid("organizationId", "organization id", `${quoted(organizationId)} is not a uuid`);

  let rateLimit: RateLimit | false = DEFAULT_RATE_LIMIT;
  const rawLimit = get("rateLimit");
  if (rawLimit !== undefined) {
    try {
      rateLimit = parseRateLimit(rawLimit);
    } catch (e) {
      invalid("rateLimit", "rate limit", (e as Error).message);
    }
  }

  let rateLimitStore: StoreAddress | undefined;
  const rawStore = get("rateLimitStore");
  if (rawStore !== undefined) {
    const parsed = parseStoreAddress(rawStore);
    if ("problems" in parsed) invalid("rateLimitStore", "rate limit store", parsed.problems.join("; "));
    else rateLimitStore = parsed;
  }

  if (problems.length) throw new ConfigurationError(problems);
  const store = rateLimitStore && { rateLimitStore };
  return { apiUrl: apiUrl!, keyId: keyId!, keySecret: keySecret!, organizationId, rateLimit, ...store };
}

// A provider host serves one stack: one map per process holds what `configure` received.
const stackConfig = new Map<string, string>();

/** `configure` of both providers: the config given replaces the one kept, removed keys included. */
export function configureFromStack(request: { config: { get(key: string): unknown } }): void {
  for (const setting of Object.values(CONFIG_SETTINGS)) {
    const value = request.config.get(setting.configKey);
    if (value !== undefined && value !== null) stackConfig.set(setting.configKey, String(value));
    else stackConfig.delete(setting.configKey);
  }
}

export function stackSetting(key: string): string | undefined {
  return stackConfig.get(key);
}

/** Default organization: stack config `dbcloud:organizationId`, then `DBCLOUD_ORGANIZATION_ID`. */
export function defaultOrganizationId(): string | undefined {
  return readSetting("organizationId", stackSetting, process.env);
}

/** The smallest `DBCLOUD_TIME_SCALE`: a 20-minute timeout still lasts over a second. */
export const MIN_TIME_SCALE = 0.001;

/** `DBCLOUD_TIME_SCALE` scales our waits, so tests and the demo run in seconds; waits the server asks for never. */
export function timeScale(): number {
  const raw = process.env.DBCLOUD_TIME_SCALE;
  if (raw === undefined || raw === "") return 1;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < MIN_TIME_SCALE || value > 1) {
    throw new ConfigurationError([
      `DBCLOUD_TIME_SCALE must be a number from ${MIN_TIME_SCALE} to 1, got ${quoted(raw)}`,
    ]);
  }
  return value;
}

/** The client for the settings as they are now, with retry waits scaled by `DBCLOUD_TIME_SCALE`. */
export function apiClientFor(stackConfig: StackConfig, log: (line: string) => void) {
  const config = resolveConfig(stackConfig, process.env);
  const scale = timeScale();
  const { baseDelayMs, maxDelayMs } = DEFAULT_RETRY_POLICY;
  const retry = { baseDelayMs: baseDelayMs * scale, maxDelayMs: maxDelayMs * scale };
  // The settings as resolved: the client ignores the organization, which is not its concern.
  return new ApiClient({ ...config, retry, log });
}
