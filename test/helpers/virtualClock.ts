import type { Clock } from "../../src/api/clock";

/**
 * A virtual clock on which nothing really waits: `sleep(ms)` moves time on by `ms` at once and
 * notes the wait in `sleeps`; `advance(ms)` moves it on without a sleep. For code that only
 * needs time to pass (a race between waiters wants steppedClock instead).
 */
export function virtualClock(): {
  clock: Clock;
  now(): number;
  advance(ms: number): number;
  sleeps: number[];
} {
  let now = 0;
  const sleeps: number[] = [];
  return {
    clock: {
      now: () => now,
      sleep: async (ms) => {
        sleeps.push(ms);
        now += ms;
      },
    },
    now: () => now,
    advance: (ms) => (now += ms),
    sleeps,
  };
}
