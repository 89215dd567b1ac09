import { ApiClient } from "../api/client";
import { systemClock, type Clock } from "../api/clock";
import { DEFAULT_RETRY_POLICY } from "../api/retry";
import { resolveConfig, stackSetting, timeScale, type ResolvedConfig } from "./config";
import { DEFAULT_TUNING, type ConvergeTuning, type ProgressLog } from "./converge";

/**
 * What a provider method needs at run time, built from the stack config handed to `configure`
 * and the environment. Nothing here is captured at serialization time:
 * credentials never reach the serialized provider or the state.
 */
export interface ProviderContext {
  client: ApiClient;
  clock: Clock;
  random: () => number;
  log: ProgressLog;
  tuning: ConvergeTuning;
}

/** How long a read (refresh, or the GET of an endpoint's create) may take in all, retries included. */
export const READ_TIMEOUT_SECONDS = 120;

/** The deadline of a read: `READ_TIMEOUT_SECONDS`, scaled like every default wait of ours. */
export function readDeadline(): number {
  return deadlineAfter(READ_TIMEOUT_SECONDS * timeScale());
}

/** The clock time `seconds` from now, for a call's deadline. */
export function deadlineAfter(seconds: number): number {
  return systemClock.now() + seconds * 1000;
}

/** Progress goes to stdout, warnings to stderr: the Pulumi CLI shows both for dynamic providers. */
export const consoleLog: ProgressLog = {
  info: (line) => console.log(`[dbcloud] ${line}`),
  warn: (line) => console.error(`[dbcloud] warning: ${line}`),
};

/**
 * The client for a resolved configuration, with retry waits scaled by `DBCLOUD_TIME_SCALE`. The
 * providers build one per call from the stack config given to `configure`; `getService` builds
 * one per call from the program's stack config. Neither keeps it anywhere it could be serialized.
 */
export function apiClientFor(config: ResolvedConfig, log: (line: string) => void): ApiClient {
  const scale = timeScale();
  return new ApiClient({
    apiUrl: config.apiUrl,
    keyId: config.keyId,
    keySecret: config.keySecret,
    rateLimit: config.rateLimit,
    retry: {
      baseDelayMs: DEFAULT_RETRY_POLICY.baseDelayMs * scale,
      maxDelayMs: DEFAULT_RETRY_POLICY.maxDelayMs * scale,
    },
    log,
  });
}

export function providerContext(): ProviderContext {
  const config = resolveConfig(stackSetting, process.env);
  const scale = timeScale();
  const log = consoleLog;
  const client = apiClientFor(config, (line) => log.info(line));
  const tuning: ConvergeTuning = {
    ...DEFAULT_TUNING,
    firstPollMs: DEFAULT_TUNING.firstPollMs * scale,
    maxPollMs: DEFAULT_TUNING.maxPollMs * scale,
    commandGraceMs: DEFAULT_TUNING.commandGraceMs * scale,
    progressEveryMs: DEFAULT_TUNING.progressEveryMs * scale,
  };
  return { client, clock: systemClock, random: Math.random, log, tuning };
}
