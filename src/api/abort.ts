import { setTimeout as sleepFor } from "node:timers/promises";
import { systemClock, timerMs, type Clock } from "./clock";
import { truncate } from "./redact";

/** `clock.sleep(ms)`, or the signal's reason as soon as it aborts; on the system clock its timer goes too. */
export function sleepUnlessAborted(clock: Clock, ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return clock.sleep(ms);
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  if (clock === systemClock) {
    return sleepFor(timerMs(ms), undefined, { signal }).catch((error: unknown) => {
      throw signal.aborted ? signal.reason : error;
    });
  }
  return untilAborted(clock.sleep(ms), signal);
}

/** `promise`, or the signal's reason as soon as it aborts (the promise itself runs on). */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  let onAbort = () => {};
  const aborted = new Promise<never>((_resolve, reject) => (onAbort = () => reject(signal.reason as Error)));
  signal.addEventListener("abort", onAbort, { once: true });
  return Promise.race([promise, aborted]).finally(() => signal.removeEventListener("abort", onAbort));
}

/** Why a call was cancelled, for an error's text: the reason's message, cut, without a second "Cancelled:". */
export function cancelledDetail(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  const text = reason instanceof Error ? reason.message : String(reason);
  return truncate(text.replace(/^Cancelled:\s*/, ""), 200);
}
