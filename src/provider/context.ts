import { ApiClient } from "../api/client";
import { systemClock, type Clock } from "../api/clock";
import { DEFAULT_RETRY_POLICY } from "../api/retry";
import { resolveConfig, stackSetting, timeScale } from "./config";
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

/** The clock time `seconds` from now, for a call's deadline. */
export function deadlineAfter(seconds: number): number {
  return systemClock.now() + seconds * 1000;
}

/** Progress goes to stdout, warnings to stderr: the Pulumi CLI shows both for dynamic providers. */
// Stryker disable all: log wording, out of the mutation scope (stryker.config.mjs)
export const consoleLog: ProgressLog = {
  info: (line) => console.log(`[dbcloud] ${line}`),
  warn: (line) => console.error(`[dbcloud] warning: ${line}`),
};
// Stryker restore all

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
