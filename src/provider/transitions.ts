/*
 * Transition lengths learned so far: per resource (kept in its outputs as `transitionSeconds`,
 * so the next `pulumi up` starts informed) and per process (every transition this process
 * watched, other services' too: the prior of a resource with no history of its own).
 */

export type Direction = "start" | "stop";

/** Durations in ms, most recent last, per direction. */
export interface TransitionSamples {
  start: number[];
  stop: number[];
}

/** How many of a resource's own transitions its outputs keep, per direction. */
export const OWN_HISTORY_LENGTH = 5;
/** How many transitions the process-wide prior keeps, per direction. */
export const PRIOR_HISTORY_LENGTH = 20;
/** Longer than this is not a sample worth keeping (the longest timeout is a day). */
const MAX_SAMPLE_MS = 86_400_000;

export function emptySamples(): TransitionSamples {
  return { start: [], stop: [] };
}

/** Appends a sample, keeping the last `keep`; returns a new value. */
export function withSample(
  samples: TransitionSamples,
  direction: Direction,
  ms: number,
  keep: number,
): TransitionSamples {
  if (!(Number.isFinite(ms) && ms > 0 && ms <= MAX_SAMPLE_MS)) return samples;
  return { ...samples, [direction]: [...samples[direction], ms].slice(-keep) };
}

const PRIOR_KEY = Symbol.for("pulumi-dbcloud.transitions.v1");

/**
 * The process-wide prior. On globalThis under a Symbol.for key, like the rate budgets: every
 * copy of the package loaded into one provider host learns from the same transitions.
 */
export function processPrior(): TransitionSamples {
  const holder = globalThis as unknown as Record<symbol, TransitionSamples | undefined>;
  return (holder[PRIOR_KEY] ??= emptySamples());
}

/** Adds a watched transition to a prior in place (the process-wide one is shared by reference). */
export function learn(prior: TransitionSamples, direction: Direction, ms: number): void {
  const next = withSample(prior, direction, ms, PRIOR_HISTORY_LENGTH);
  prior[direction] = next[direction];
}

/** `transitionSeconds` as stored in outputs: seconds with millisecond precision. */
export interface TransitionSeconds {
  start: number[];
  stop: number[];
}

/**
 * Reads `transitionSeconds` from state written by any version: missing, malformed or
 * out-of-range values are dropped, never trusted (state may be old or edited by hand).
 */
export function samplesFromOutputs(value: unknown): TransitionSamples {
  const out = emptySamples();
  // (A truthy primitive needs no test of its own: it has no start or stop list either.)
  if (!value) return out;
  for (const direction of ["start", "stop"] as const) {
    const list = (value as Record<string, unknown>)[direction];
    if (!Array.isArray(list)) continue;
    for (const item of list.slice(-OWN_HISTORY_LENGTH)) {
      if (typeof item === "number")
        out[direction] = withSample(out, direction, item * 1000, OWN_HISTORY_LENGTH)[direction];
    }
  }
  return out;
}

export function samplesToOutputs(samples: TransitionSamples): TransitionSeconds {
  const seconds = (list: number[]) => list.slice(-OWN_HISTORY_LENGTH).map((ms) => Math.round(ms) / 1000);
  return { start: seconds(samples.start), stop: seconds(samples.stop) };
}
