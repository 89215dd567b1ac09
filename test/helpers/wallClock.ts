/*
 * The process's wall clock stepped as NTP, a resumed VM or a hand would step it: `Date.now`
 * jumps by `offsetMs` after `afterMs` of real time, while the monotonic clock
 * (`performance.now`) runs on. `restore()` puts the real wall clock back (itself a step).
 */

/** A monotonic time on about the epoch's scale: for an emulator that must not see our steps. */
export const monotonicNow = (): number => performance.timeOrigin + performance.now();

export interface SteppedWallClock {
  /** Whether the step has happened yet. */
  stepped(): boolean;
  restore(): void;
}

export function stepWallClock(offsetMs: number, afterMs = 0): SteppedWallClock {
  const realNow = Date.now;
  let offset = 0;
  const step = () => (offset = offsetMs);
  const timer = afterMs > 0 ? setTimeout(step, afterMs) : undefined;
  if (!timer) step();
  Date.now = () => realNow() + offset;
  return {
    stepped: () => offset !== 0,
    restore() {
      clearTimeout(timer);
      Date.now = realNow;
    },
  };
}
