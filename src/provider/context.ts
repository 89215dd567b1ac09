import type { ApiClient } from "../api/client";
import { systemClock, type Clock } from "../api/clock";
import { apiClientFor, resolveConfig, stackSetting, timeScale } from "../config";
import type { ProgressLog } from "./convergeTypes";
import { cancellableClock } from "./cancellation";
import { READ_TIMEOUT_SECONDS } from "./defaults";
import { consoleLog } from "./progress";
import { DEFAULT_TUNING, scaleTuning, type ConvergeTuning } from "./tuning";

/**
 * What a provider method needs at run time, built from the stack config handed to `configure`
 * and the environment. Nothing here is captured at serialization time: credentials never reach
 * the serialized provider or the state.
 */
export interface ProviderContext {
  client: ApiClient;
  clock: Clock;
  log: ProgressLog;
  tuning: ConvergeTuning;
}

/** The context of the settings last seen, and those settings. */
let current: { settings: string; context: ProviderContext } | undefined;

/**
 * The context for the settings as they are now. They are read on every call (the stack config
 * and the environment decide, whenever they change); the client is kept while they stay the
 * same, so a provider host reuses its connections from call to call.
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

/** The deadline of a read started now: `READ_TIMEOUT_SECONDS`, scaled like every default wait of ours. */
export function readDeadline(): number {
  return deadlineAfter(READ_TIMEOUT_SECONDS * timeScale());
}
