import type { ApiClient } from "../api/client";
import { systemClock, type Clock } from "../api/clock";
import { apiClientFor, resolveConfig, stackSetting, timeScale } from "../config";
import { cancellableClock } from "./cancellation";
import { DEFAULT_TUNING, scaleTuning, type ConvergeTuning, type ProgressLog } from "./convergeTypes";
import { READ_TIMEOUT_SECONDS } from "./defaults";
import { consoleLog } from "./progress";

/** What a provider method needs at run time, built from the stack config and the environment. */
export interface ProviderContext {
  client: ApiClient;
  clock: Clock;
  log: ProgressLog;
  tuning: ConvergeTuning;
}

let current: { settings: string; context: ProviderContext } | undefined;

/**
 * The context for the settings as they are now, read on every call; the client is kept while they
 * stay the same, so a provider host reuses its connections from call to call.
 */
export function providerContext(): ProviderContext {
  const config = resolveConfig(stackSetting, process.env);
  const scale = timeScale();
  const settings = JSON.stringify([config, scale]);
  if (current?.settings !== settings) {
    const client = apiClientFor(config, (line) => consoleLog.info(line));
    const tuning = scaleTuning(DEFAULT_TUNING, scale);
    current = { settings, context: { client, clock: cancellableClock, log: consoleLog, tuning } };
  }
  return current.context;
}

/** The clock time `seconds` from now, for a call's deadline. */
export function deadlineAfter(seconds: number): number {
  return systemClock.now() + seconds * 1000;
}

/** The deadline of a read started now, scaled like every default wait of ours. */
export function readDeadline(): number {
  return deadlineAfter(READ_TIMEOUT_SECONDS * timeScale());
}
