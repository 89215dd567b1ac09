import { setTimeout as sleepFor } from "node:timers/promises";
import { MAX_TIMER_MS, systemClock, type Clock } from "../api/clock";
import { DbcloudError } from "../api/errors";

/*
 * One cancellation for the whole process: the plugin's `Cancel` calls `cancelAll()`, and every wait
 * of the converger then rejects, now and later (the engine ends the plugin next). Kept on
 * `globalThis`, so a second copy of this module shares it.
 */

/** The error a wait rejects with once the process is cancelled. */
export class CancelledError extends DbcloudError {
  constructor() {
    super("Cancelled: the Pulumi engine asked the provider to stop; nothing more is sent or awaited.");
    this.name = "CancelledError";
  }
}

const KEY = Symbol.for("pulumi-dbcloud.cancellation");

function controller(): AbortController {
  const holder = globalThis as { [KEY]?: AbortController };
  return (holder[KEY] ??= new AbortController());
}

/** Ends every wait in flight and every later one. */
export function cancelAll(): void {
  controller().abort(new CancelledError());
}

/**
 * The system clock whose `sleep` rejects once the process is cancelled: the converger's. The API
 * client keeps the plain system clock, which its budget shares with other processes.
 */
export const cancellableClock: Clock = {
  now: () => systemClock.now(),
  wallNow: () => Date.now(),
  sleep: async (ms) => {
    const signal = controller().signal;
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, Number.isFinite(ms) ? ms : 0));
    try {
      await sleepFor(delay, undefined, { signal });
    } catch (error) {
      throw signal.aborted ? signal.reason : error;
    }
  },
};
