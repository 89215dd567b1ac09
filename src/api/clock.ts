/** Time as the client and the waiters see it; tests inject a fake one so nothing really waits. */
export interface Clock {
  /** The current time in ms (epoch for the system clock). */
  now(): number;
  /** Resolves after `ms` milliseconds of this clock's time. */
  sleep(ms: number): Promise<void>;
}

/** Node's timers hold at most a signed 32-bit number of ms; a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) =>
    new Promise((resolve) =>
      setTimeout(resolve, Math.min(MAX_TIMER_MS, Math.max(0, Number.isFinite(ms) ? ms : 0))),
    ),
};
