import { ApiClient } from "../../api/client";
import { systemClock, type Clock } from "../../api/clock";
import { readSetting, resolveConfig, CONFIG_SETTINGS } from "../../api/config";
import { ConfigurationError } from "../../api/errors";
import { processRuntime } from "../../api/runtime";
import { DEFAULT_RETRY_POLICY } from "../../api/retry";
import { DEFAULT_TUNING, type ConvergeTuning, type ProgressLog } from "./converge";

/**
 * What a provider method needs at run time, built from the stack config handed to `configure`
 * (kept on globalThis) and the environment. Nothing here is captured at serialization time:
 * credentials never reach the serialized provider or the state.
 */
export interface ProviderContext {
  client: ApiClient;
  clock: Clock;
  random: () => number;
  log: ProgressLog;
  tuning: ConvergeTuning;
}

/** `configure` of both providers: keep the `dbcloud:*` stack config for later calls. */
export function configureFromStack(request: { config: { get(key: string): unknown } }): void {
  const stackConfig = processRuntime().stackConfig;
  for (const setting of Object.values(CONFIG_SETTINGS)) {
    const value = request.config.get(setting.configKey);
    if (value !== undefined && value !== null) stackConfig.set(setting.configKey, String(value));
  }
}

function stackSetting(key: string): string | undefined {
  return processRuntime().stackConfig.get(key);
}

/** Default organization: stack config `dbcloud:organizationId`, then `DBCLOUD_ORGANIZATION_ID`. */
export function defaultOrganizationId(): string | undefined {
  return readSetting("organizationId", stackSetting, process.env);
}

/**
 * `DBCLOUD_TIME_SCALE` multiplies every wait of ours (polls, grace, progress, retry backoff):
 * the tests and the demo run real transitions in seconds with it. Server-requested waits
 * (Retry-After) are never scaled.
 */
export function timeScale(): number {
  const raw = process.env.DBCLOUD_TIME_SCALE;
  if (raw === undefined || raw === "") return 1;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || value > 1) {
    throw new ConfigurationError([
      `DBCLOUD_TIME_SCALE must be a number in (0, 1], got ${JSON.stringify(raw)}`,
    ]);
  }
  return value;
}

/** Progress goes to stdout, warnings to stderr: the Pulumi CLI shows both for dynamic providers. */
export const consoleLog: ProgressLog = {
  info: (line) => console.log(`[dbcloud] ${line}`),
  warn: (line) => console.error(`[dbcloud] warning: ${line}`),
};

export function providerContext(): ProviderContext {
  const config = resolveConfig(stackSetting, process.env);
  const scale = timeScale();
  const log = consoleLog;
  const client = new ApiClient({
    apiUrl: config.apiUrl,
    keyId: config.keyId,
    keySecret: config.keySecret,
    rateLimit: config.rateLimit,
    retry: {
      baseDelayMs: DEFAULT_RETRY_POLICY.baseDelayMs * scale,
      maxDelayMs: DEFAULT_RETRY_POLICY.maxDelayMs * scale,
    },
    log: (line) => log.info(line),
  });
  const tuning: ConvergeTuning = {
    ...DEFAULT_TUNING,
    firstPollMs: DEFAULT_TUNING.firstPollMs * scale,
    maxPollMs: DEFAULT_TUNING.maxPollMs * scale,
    commandGraceMs: DEFAULT_TUNING.commandGraceMs * scale,
    progressEveryMs: DEFAULT_TUNING.progressEveryMs * scale,
  };
  return { client, clock: systemClock, random: Math.random, log, tuning };
}
