import type { LedgerState } from "./ledger";
import type { RateLimit } from "./rateLimit";

/*
 * Processes that share only the key learn of each other from 429s alone, so a budget paces its
 * grants after a small burst, cuts its rate below its share of the key after a 429, and climbs
 * back along a cubic curve (the AWS SDKs' adaptive mode). docs/rate-limits.md has the reasoning.
 */
export const ADAPTIVE_RATE = Object.freeze({
  /** Grants a budget at its full rate sends at once before pacing, as a fraction of the limit. */
  burst: 0.3,
  /** The rate right after a 429, as a fraction of the share. */
  cut: 0.7,
  /** Where the climb flattens, as a fraction of the share. */
  plateau: 0.85,
  /** Windows from the 429 to the plateau (the middle of the flat part). */
  plateauWindows: 3,
  /** The lowest rate, in requests per window: a process that got nothing still gets a request through now and then. */
  minRequests: 0.5,
});

/** The requests per window a budget hands out at `now` (the full limit unless a 429 lowered it). */
export function ratePerWindow(limit: RateLimit, throttle: LedgerState["throttle"], now: number): number {
  if (!throttle) return limit.requests;
  const { cut, plateau, plateauWindows, minRequests } = ADAPTIVE_RATE;
  const top = throttle.share * plateau;
  const steepness = (top - throttle.share * cut) / plateauWindows ** 3;
  const windows = Math.max(0, now - throttle.at) / limit.windowMs;
  const rate = top + steepness * (windows - plateauWindows) ** 3;
  return Math.min(limit.requests, Math.max(minRequests, rate));
}

/** How many grants may go out at once: a small burst at the full rate, one at a time below it. */
export function burstAt(limit: RateLimit, rate: number): number {
  return rate >= limit.requests ? Math.max(1, Math.round(limit.requests * ADAPTIVE_RATE.burst)) : 1;
}

/**
 * Learns this budget's share from a 429 at `now` whose window resets at `resetAt`: its grants
 * accepted in that window. Once per window: the other 429s of a full window say nothing new.
 */
export function learnFromThrottle(
  state: LedgerState,
  limit: RateLimit,
  now: number,
  resetAt: number,
): boolean {
  if (state.throttle && now - state.throttle.at < limit.windowMs) return false;
  // The server's window ends at its reset; a reset further off than a window names no window.
  const windowEnd = resetAt > now && resetAt - now < limit.windowMs ? resetAt : now;
  const windowStart = windowEnd - limit.windowMs;
  const inWindow = state.grants.filter((grant) => grant >= windowStart && grant <= now).length;
  const share = Math.min(
    ratePerWindow(limit, state.throttle, now),
    Math.max(ADAPTIVE_RATE.minRequests, inWindow - 1),
  );
  state.throttle = { at: now, share };
  return true;
}

/** Forgets a throttle once the rate is back at the full limit. */
export function settleThrottle(state: LedgerState, limit: RateLimit, now: number): void {
  if (state.throttle && ratePerWindow(limit, state.throttle, now) >= limit.requests)
    state.throttle = undefined;
}
