/*
 * When to poll after a command, as pure functions of the time since the command and what is
 * known of how long such a transition takes. The converger calls them; the tests call them
 * directly with a virtual clock (issue 11).
 */

/** What the waiting knows of a transition's length: a window in which it most likely ends, in ms after the command. */
export interface TransitionEstimate {
  lowMs: number;
  highMs: number;
}

export interface ScheduleTuning {
  /** With nothing known, a poll this often (what a constant 5 s poller does: never worse than it). */
  defaultPollMs: number;
  /** Bounds of the interval between polls around the expected end. */
  densePollMinMs: number;
  densePollMaxMs: number;
  /**
   * What one poll is worth in lateness, at most and at least: a poll costs a slot of the key's
   * budget. Short transitions value a poll at the most (a constant poller spends only one or two
   * on them), long ones at the least; in between it falls as `pollWorthMaxMs * shortWindowMs / window`.
   */
  pollWorthMaxMs: number;
  pollWorthMinMs: number;
  shortWindowMs: number;
  /** Ceiling of the interval when the transition runs late. */
  maxPollMs: number;
}

export const DEFAULT_SCHEDULE: ScheduleTuning = {
  defaultPollMs: 5_000,
  densePollMinMs: 500,
  densePollMaxMs: 1_000,
  pollWorthMaxMs: 1_000,
  pollWorthMinMs: 200,
  shortWindowMs: 3_000,
  maxPollMs: 10_000,
};

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));
const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * How far around the median the window reaches at least, as a fraction of it: 24 % for one
 * sample, narrowing as one over the square root of the count (as a mean's uncertainty does),
 * never under 20 %. One sample says little of where the next transition ends: a window as
 * narrow as several samples give would be overrun by a fifth of the next ones (a length that
 * varies by +-25 % lands anywhere from 0.6 to 1.67 times the last one).
 */
export function windowSpread(samples: number): number {
  return Math.max(0.2, 0.24 / Math.sqrt(Math.max(1, samples)));
}

/**
 * The window a transition most likely ends in, from durations seen before (ms): the service's
 * own when it has any, else those of every service this process watched, else nothing (then
 * the waiting polls every `defaultPollMs`). From the smallest seen minus 10 % (and at most the
 * median less `windowSpread`) to the largest plus 10 % (and at least the median plus it).
 */
export function estimateTransition(
  own: readonly number[],
  // Stryker disable next-line ArrayDeclaration: any default that holds no positive finite number is no prior at all (`usable` drops it): equivalent
  prior: readonly number[] = [],
): TransitionEstimate | undefined {
  const usable = (list: readonly number[]) => list.filter((ms) => Number.isFinite(ms) && ms > 0);
  const samples = usable(own).length ? usable(own) : usable(prior);
  if (!samples.length) return undefined;
  const middle = median(samples);
  const spread = windowSpread(samples.length);
  return {
    lowMs: Math.min(Math.min(...samples) * 0.9, middle * (1 - spread)),
    highMs: Math.max(Math.max(...samples) * 1.1, middle * (1 + spread)),
  };
}

/**
 * Where the dense polling starts and how dense it is. With the transition's end taken as
 * uniform over the window W, the first poll at `low + x` and then one every `d`, the expected
 * lateness plus `worth` per poll is smallest at d = sqrt(worth * (W - x)) and
 * x = (d²/2 + worth * W) / (d + worth); two rounds of that fixed point are close enough.
 */
export function densePlan(
  estimate: TransitionEstimate,
  tuning: ScheduleTuning,
): { firstMs: number; everyMs: number } {
  const window = Math.max(1, estimate.highMs - estimate.lowMs);
  const worth = clamp(
    (tuning.pollWorthMaxMs * tuning.shortWindowMs) / window,
    tuning.pollWorthMinMs,
    tuning.pollWorthMaxMs,
  );
  const interval = (rest: number) =>
    clamp(Math.sqrt(worth * Math.max(0, rest)), tuning.densePollMinMs, tuning.densePollMaxMs);
  const offset = (d: number) => ((d * d) / 2 + worth * window) / (d + worth);
  let everyMs = interval(window);
  let x = Math.min(window, offset(everyMs));
  everyMs = interval(window - x);
  x = Math.min(window, offset(everyMs));
  return { firstMs: estimate.lowMs + x, everyMs };
}

/**
 * When the next poll should go, in ms after the command, given that it is now `elapsedMs` after
 * it (the last answer's time): nothing known, `defaultPollMs` later, as a constant poller does
 * (so never worse than one, in requests or lateness); known, sleep through to the first dense
 * poll, then one every `everyMs` on a grid from it, and past the window's end back off (a
 * quarter of the overrun, at least `everyMs`, at most `maxPollMs`). On the grid, time a poll
 * spent queued for the rate budget counts toward its interval.
 */
export function nextPollAt(
  elapsedMs: number,
  estimate: TransitionEstimate | undefined,
  tuning: ScheduleTuning,
): number {
  const onGrid = (start: number, every: number) =>
    // (a hair of tolerance: a clock advanced by these very intervals lands a rounding error short)
    elapsedMs < start ? start : start + (Math.floor((elapsedMs - start) / every + 1e-9) + 1) * every;
  // Nothing known: exactly a constant poller, 5 s after each answer.
  if (!estimate) return elapsedMs + tuning.defaultPollMs;
  const { firstMs, everyMs } = densePlan(estimate, tuning);
  if (elapsedMs < firstMs) return firstMs;
  if (elapsedMs < estimate.highMs) return Math.max(onGrid(firstMs, everyMs), elapsedMs + everyMs / 4);
  return elapsedMs + clamp((elapsedMs - estimate.highMs) / 4, everyMs, Math.max(everyMs, tuning.maxPollMs));
}

/**
 * How likely the transition is over at `elapsedMs` after the command, from 0 to 1: the rate
 * budget serves waiting polls most likely to find their service done first. Without an
 * estimate, a slowly rising guess (half at one minute), so older transitions still go first.
 */
export function doneLikelihood(elapsedMs: number, estimate: TransitionEstimate | undefined): number {
  // Stryker disable next-line EqualityOperator: at exactly 0 both ways give 0 (0 / 60 s, or a window that starts after the command): equivalent
  if (elapsedMs <= 0) return 0;
  if (!estimate) return elapsedMs / (elapsedMs + 60_000);
  return clamp((elapsedMs - estimate.lowMs) / Math.max(1, estimate.highMs - estimate.lowMs), 0, 1);
}

/**
 * The length of a transition seen by polls: it ended after the last answer that showed it going
 * on (`lastPendingMs`) and before the one that showed it done (`doneMs`). The middle of that span,
 * narrowed to the window expected beforehand when they overlap (a long sleep before the first
 * poll would otherwise halve the sample); with no window and no pending answer, the bound itself.
 */
export function observedDuration(
  lastPendingMs: number,
  doneMs: number,
  estimate: TransitionEstimate | undefined,
): number {
  // Nothing known and nothing seen pending after the command: the first poll says only "at most
  // this long". Take that bound; half of it would teach the next converge to poll far too early.
  if (!estimate && lastPendingMs <= 0) return Math.max(0, doneMs);
  let low = Math.max(0, lastPendingMs);
  let high = Math.max(low, doneMs);
  if (estimate && estimate.lowMs < high && estimate.highMs > low) {
    low = Math.max(low, estimate.lowMs);
    high = Math.min(high, estimate.highMs);
  }
  return (low + high) / 2;
}
