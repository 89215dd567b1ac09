import type { LedgerState, Throttle } from "./ledger";
import type { RateLimit } from "./rateLimit";

/*
 * How fast a budget sends, given what the server's 429s taught. Processes that share nothing
 * but the key (other machines, other tools) only learn of each other from 429s, so:
 *
 * - A budget paces its grants (a GCRA: one every window/rate) after a small burst, instead of
 *   sending a whole window at once: several fresh processes starting together then overrun the
 *   key by a few requests, not by every process's full window.
 * - A 429 says the key's window is full. The requests per window this budget had accepted in
 *   that window are its share of the key (every process paced, so each got about its part); the
 *   rate drops below that share, so the processes together leave the key some room.
 * - The rate then climbs back along a cubic curve (the AWS SDKs' adaptive mode, TCP CUBIC):
 *   quickly to a plateau just under the share, flat there for a while, then faster and faster
 *   towards the full limit, so a key that other processes stopped using is found again, and
 *   the processes still sharing it overrun it only now and then.
 */
export const ADAPTIVE_RATE = {
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
};

/** The requests per window a budget hands out at `now` (the full limit unless a 429 lowered it). */
export function ratePerWindow(limit: RateLimit, throttle: Throttle | undefined, now: number): number {
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
 * Learns from a 429 seen at `now` whose window resets at `resetAt`: the grants of this budget
 * in that window that were accepted (all but the one refused) are its share. Once per window:
 * the other answers of the same full window say nothing new.
 */
export function learnFromThrottle(
  state: LedgerState,
  limit: RateLimit,
  now: number,
  resetAt: number,
): boolean {
  if (state.throttle && now - state.throttle.at < limit.windowMs) return false;
  // The server's window ends at its reset; a reset further off than a window names no window.
  const windowStart =
    resetAt - limit.windowMs < now
      ? Math.max(now - limit.windowMs, resetAt - limit.windowMs)
      : now - limit.windowMs;
  const inWindow = state.grants.filter((grant) => grant >= windowStart && grant <= now).length;
  const rate = ratePerWindow(limit, state.throttle, now);
  const share = Math.min(rate, Math.max(ADAPTIVE_RATE.minRequests, inWindow - 1));
  state.throttle = { at: now, share };
  return true;
}

/** Forgets a throttle once the rate is back at the full limit. */
export function settleThrottle(state: LedgerState, limit: RateLimit, now: number): void {
  if (state.throttle && ratePerWindow(limit, state.throttle, now) >= limit.requests)
    state.throttle = undefined;
}
