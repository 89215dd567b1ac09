import type { Clock } from "../../src/api/clock";

/**
 * A virtual clock for code that waits on it and sends real HTTP requests: time moves to the next
 * sleeper's wake-up only once nothing is in flight (`busy()` false for a few turns of the event
 * loop), so a request always reaches the server at the clock time it was sent. `base` is the
 * clock's time at the start (near the wall clock, for code that keeps wall-clock times).
 */
export function idleClock(base: number): {
  clock: Clock;
  now(): number;
  runUntil(done: () => boolean, busy: () => boolean): Promise<void>;
} {
  let now = base;
  const sleepers: { until: number; wake: () => void }[] = [];
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  return {
    clock: {
      now: () => now,
      sleep: (ms) => new Promise<void>((wake) => sleepers.push({ until: now + ms, wake })),
    },
    now: () => now,
    async runUntil(done, busy) {
      for (;;) {
        for (let quiet = 0; quiet < 5;) {
          await turn();
          quiet = busy() ? 0 : quiet + 1;
        }
        if (done()) return;
        sleepers.sort((a, b) => a.until - b.until);
        const next = sleepers.shift();
        if (!next) return;
        now = Math.max(now, next.until);
        next.wake();
      }
    },
  };
}
