/**
 * Time as the client and the waiters see it (tests inject a fake one). `now()` is monotonic, so no
 * wall-clock step moves a deadline, timeout or backoff; the wall clock is for times shown or stored.
 */
export interface Clock {
  /** The current time in ms on a timeline that never goes back. */
  now(): number;
  /** Resolves after `ms` milliseconds of this clock's time. */
  sleep(ms: number): Promise<void>;
  /** The wall-clock time, epoch ms. Absent: `now()` (a test clock whose two timelines are one). */
  wallNow?(): number;
}

/** Node's timers hold at most a signed 32-bit number of ms; a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export const timerMs = (ms: number) => Math.min(MAX_TIMER_MS, Math.max(0, Number.isFinite(ms) ? ms : 0));

export const systemClock: Clock = {
  // Anchored on the wall clock at start, so processes sharing a budget file share about one timeline.
  now: () => performance.timeOrigin + performance.now(),
  wallNow: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, timerMs(ms))),
};

export function wallNow(clock: Clock): number {
  return clock.wallNow ? clock.wallNow() : clock.now();
}

/** A wall-clock time (stored, or a server's) on the clock's timeline by its age now; a future one is now. */
export function fromWallTime(clock: Clock, wallMs: number): number {
  return clock.now() - Math.max(0, wallNow(clock) - wallMs);
}
