/*
 * The converger's waiting and re-sending knobs. Defaults are for the real service; the tests and
 * the demo scale every wait down with DBCLOUD_TIME_SCALE.
 */

export interface ConvergeTuning {
  /** After each answer, the next poll this much later: a constant poller. */
  pollEveryMs: number;
  /** After a command, how long GET may keep showing the old state before the command is re-sent (once). */
  commandGraceMs: number;
  /** At most one progress line this often. */
  progressEveryMs: number;
  /**
   * PATCH requests one converge sends at most, counted on the wire: resends and the client's
   * transport retries included; only answers that refuse without applying (4xx) are not
   * counted. Someone else flipping the service back ends the converge.
   */
  maxCommands: number;
}

/** No poll interval is shorter than this, whatever the scaling: no setting makes a tight loop. */
export const MIN_POLL_MS = 10;

export const DEFAULT_TUNING: Readonly<ConvergeTuning> = Object.freeze({
  pollEveryMs: 5_000,
  commandGraceMs: 30_000,
  progressEveryMs: 30_000,
  maxCommands: 3,
});

/** The tuning with every wait multiplied by `scale` (DBCLOUD_TIME_SCALE); the command bound stays. */
export function scaleTuning(tuning: Readonly<ConvergeTuning>, scale: number): ConvergeTuning {
  return {
    pollEveryMs: tuning.pollEveryMs * scale,
    commandGraceMs: tuning.commandGraceMs * scale,
    progressEveryMs: tuning.progressEveryMs * scale,
    maxCommands: tuning.maxCommands,
  };
}
