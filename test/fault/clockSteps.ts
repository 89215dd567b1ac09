// Steps of the process's wall clock during a converge (NTP, a resumed VM or container), while the
// monotonic clock runs on: deadlines, polls and waits must not move, and the times the provider
// stores are read safely afterwards, when the wall clock is right again.
import fc from "fast-check";
import { stepWallClock } from "../helpers/wallClock";

/** The wall clock stepped by `offsetMs`, `afterMs` into an action. */
export interface ClockStep {
  offsetMs: number;
  afterMs: number;
}

/** An hour back, or ten minutes either way, early in the action, while it is likely still waiting. */
export function clockStep(): fc.Arbitrary<ClockStep> {
  return fc.record({
    offsetMs: fc.constantFrom(-600_000, 600_000, -3_600_000),
    afterMs: fc.integer({ min: 5, max: 60 }),
  });
}

/** Runs `action` with the wall clock stepped as `step` says, and put right after it. */
export async function withClockStep<T>(step: ClockStep | undefined, action: () => Promise<T>): Promise<T> {
  const wall = step && stepWallClock(step.offsetMs, step.afterMs);
  try {
    return await action();
  } finally {
    wall?.restore();
  }
}

export const describeStep = (step: ClockStep | undefined): string =>
  step ? `, the wall clock stepped ${step.offsetMs / 1000}s ${step.afterMs}ms in` : "";
