import { setTimeout as sleepFor } from "node:timers/promises";
import { MAX_TIMER_MS, systemClock, type Clock } from "../api/clock";
import { DbcloudError } from "../api/errors";

/*
 * One cancellation for the whole process. The provider plugin's `Cancel` (the engine asks every
 * provider to stop: the user interrupted, or the engine is shutting down) calls `cancelAll()`;
 * every wait of the provider code then rejects at once, and so does every wait started after it
 * (the engine ends the plugin next). The dynamic-provider host never calls it: there it stays a
 * plain clock. Kept on `globalThis`, so a second copy of this module shares it.
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

/** Aborted once `cancelAll()` ran; its `reason` is a `CancelledError`. */
export function cancellationSignal(): AbortSignal {
  return controller().signal;
}

/** Ends every wait in flight and every later one. */
export function cancelAll(): void {
  controller().abort(new CancelledError());
}

/**
 * The system clock whose `sleep` rejects with `CancelledError` once the process is cancelled: the
 * converger's waits use it. The API client keeps the plain system clock (its budget is shared
 * with other processes through it); its waits end at their deadline.
 */
export const cancellableClock: Clock = {
  now: () => systemClock.now(),
  wallNow: () => Date.now(),
  sleep: async (ms) => {
    const signal = cancellationSignal();
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, Number.isFinite(ms) ? ms : 0));
    try {
      await sleepFor(delay, undefined, { signal });
    } catch (error) {
      throw signal.aborted ? signal.reason : error;
    }
  },
};
