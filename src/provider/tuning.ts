/*
 * The converger's waiting and re-sending knobs, in a file of their own so that converge.ts holds
 * the loop and little else (it re-exports them for its callers).
 */
import { DEFAULT_SCHEDULE, type ScheduleTuning } from "./schedule";

/** Waiting and re-sending knobs. Defaults are for the real service; tests scale them down. */
export interface ConvergeTuning extends ScheduleTuning {
  /** After a command, how long GET may keep showing the old state before the command is re-sent (once). */
  commandGraceMs: number;
  /** At most one progress line this often. */
  progressEveryMs: number;
  /**
   * PATCH requests one converge sends at most, counted on the wire: resends and the client's
   * transport retries included; only answers that refuse without applying (409, 429) are not
   * counted. Someone else flipping the service back ends the converge.
   */
  maxCommands: number;
}

/** No poll interval is shorter than this, whatever the scaling: no setting makes a tight loop. */
export const MIN_POLL_MS = 10;

export const DEFAULT_TUNING: ConvergeTuning = {
  ...DEFAULT_SCHEDULE,
  commandGraceMs: 30_000,
  progressEveryMs: 30_000,
  maxCommands: 3,
};

/** The tuning with every wait multiplied by `scale` (DBCLOUD_TIME_SCALE); the command bound stays. */
export function scaleTuning(tuning: ConvergeTuning, scale: number): ConvergeTuning {
  const scaled = { ...tuning };
  for (const key of Object.keys(scaled) as (keyof ConvergeTuning)[]) {
    if (key.endsWith("Ms")) scaled[key] = tuning[key] * scale;
  }
  return scaled;
}
