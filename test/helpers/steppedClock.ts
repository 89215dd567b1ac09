import type { Clock } from "../../src/api/clock";

/**
 * A virtual clock whose sleepers wake only when the test steps it: `runUntil(done)` wakes the
 * earliest sleeper, moves time to its wake-up, lets the awakened code run, and repeats until
 * `done()` holds or nobody sleeps. For races between waiters (a 429 arriving mid-wait).
 */
export function steppedClock(): {
  clock: Clock;
  now(): number;
  runUntil(done: () => boolean): Promise<void>;
} {
  let now = 0;
  const sleepers: { until: number; wake: () => void }[] = [];
  return {
    clock: {
      now: () => now,
      sleep: (ms) => new Promise<void>((wake) => sleepers.push({ until: now + ms, wake })),
    },
    now: () => now,
    async runUntil(done) {
      while (!done()) {
        sleepers.sort((a, b) => a.until - b.until);
        const next = sleepers.shift();
        if (!next) return;
        now = Math.max(now, next.until);
        next.wake();
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
  };
}
