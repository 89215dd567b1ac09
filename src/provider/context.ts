import { setMaxListeners } from "node:events";
import type { ApiClient } from "../api/client";
import { systemClock } from "../api/clock";
import { DbcloudError } from "../api/errors";
import { apiClientFor, CONFIG_SETTINGS, stackSetting, timeScale } from "../config";
import { DEFAULT_TUNING, scaleTuning, type ConvergeDeps } from "./convergeTypes";
import { READ_TIMEOUT_SECONDS } from "./defaults";
import { consoleLog } from "./progress";

/*
 * What a provider method needs at run time: the client and tuning of the settings as they are now,
 * and one cancellation per process, on `globalThis` so that a second copy of this module shares it.
 */

/** What a cancelled wait rejects with, the cause of a cancelled call. */
export class CancelledError extends DbcloudError {
  constructor() {
    super("Cancelled: the Pulumi engine asked the provider to stop; nothing more is sent or awaited.");
  }
}

const KEY = Symbol.for("pulumi-dbcloud.cancellation");

function controller(): AbortController {
  const holder = globalThis as { [KEY]?: AbortController };
  if (holder[KEY]) return holder[KEY];
  const made = new AbortController();
  // Every wait in flight listens, and each stops when it ends: no leak to warn of.
  setMaxListeners(Infinity, made.signal);
  return (holder[KEY] = made);
}

/** The plugin's `Cancel`: ends every wait in flight and every later one. */
export function cancelAll(): void {
  controller().abort(new CancelledError());
}

export type ProviderContext = ConvergeDeps & { client: ApiClient; signal: AbortSignal };

let current: { settings: string; context: ProviderContext } | undefined;

/** The context for the settings as given now; rebuilt, and checked, only when they change. */
export function providerContext(): ProviderContext {
  const given = Object.values(CONFIG_SETTINGS).map((s) => [stackSetting(s.configKey), process.env[s.envVar]]);
  const settings = JSON.stringify([given, process.env.DBCLOUD_TIME_SCALE]);
  if (current?.settings !== settings) {
    const client = apiClientFor(stackSetting, (line) => consoleLog.info(line));
    const tuning = scaleTuning(DEFAULT_TUNING, timeScale());
    const signal = controller().signal;
    current = { settings, context: { client, clock: systemClock, log: consoleLog, tuning, signal } };
  }
  return current.context;
}

export function deadlineAfter(seconds: number): number {
  return systemClock.now() + seconds * 1000;
}

/** The deadline of a read started now, scaled like every default wait of ours. */
export function readDeadline(): number {
  return deadlineAfter(READ_TIMEOUT_SECONDS * timeScale());
}
