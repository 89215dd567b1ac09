import type { LedgerState } from "./ledger";
import type { RateLimit } from "./rateLimit";

/*
 * Processes that share only the key learn of each other from 429s alone. After a 429 a budget
 * paces at a share of what the key accepted from it in that window (when the reset says nothing
 * of when the window began, it comes back within a window or two to what the key took from it
 * over the whole window before), then climbs by a fixed step per window (additive increase, so
 * processes that climb together drift towards equal shares), faster and faster once a few
 * windows pass without a 429, so a key that others stopped using is found again (the convex tail
 * of TCP CUBIC). docs/rate-limits.md has the reasoning.
 */
export const ADAPTIVE_RATE = Object.freeze({
  /** The rate right after a 429, as a fraction of the requests the key accepted from this budget in that window. */
  cut: 0.7,
  /** Windows after a 429 naming no window start over which the rate comes back to the share of the last window. */
  recoverWindows: 2,
  /** Requests per window the rate climbs each window after a 429. */
  climb: 0.3,
  /** Windows after a 429 from which the climb speeds up. */
  steadyWindows: 6,
  /** The lowest rate, in requests per window: a process that got nothing still gets a request through now and then. */
  minRequests: 0.5,
});

/** The requests per window a budget hands out at `now` (the full limit unless a 429 lowered it). */
export function ratePerWindow(limit: RateLimit, throttle: LedgerState["throttle"], now: number): number {
  if (!throttle) return limit.requests;
  const { climb, recoverWindows, steadyWindows, minRequests } = ADAPTIVE_RATE;
  const windows = Math.max(0, now - throttle.at) / limit.windowMs;
  const lost = Math.max(0, (throttle.recover ?? throttle.share) - throttle.share);
  const back = lost * Math.min(1, windows / recoverWindows);
  const speedUp = steadyWindows * Math.max(0, windows / steadyWindows - 1) ** 3;
  return Math.min(limit.requests, Math.max(minRequests, throttle.share + back + climb * (windows + speedUp)));
}

/**
 * Learns this budget's share from a 429 at `now` whose window resets at `resetAt`: its grants
 * accepted in that window. Once per window: the other 429s of a full window say nothing new.
 */
export function learnFromThrottle(state: LedgerState, limit: RateLimit, now: number, resetAt: number): void {
  if (state.throttle && now - state.throttle.at < limit.windowMs) return;
  // The server's window ends at its reset; a reset further off than a window names no window.
  const windowEnd = resetAt > now && resetAt - now <= limit.windowMs ? resetAt : now;
  // A reset is rounded up (to whole seconds for the real 10 s window): the window may have begun
  // up to that much earlier.
  const rounding = Math.min(1000, limit.windowMs / 10);
  const windowStart = windowEnd - limit.windowMs - rounding;
  // Less the refused request itself, dated to its answer by now.
  const acceptedSince = (start: number) =>
    state.grants.filter((grant) => grant >= start && grant <= now).length - 1;
  const share = Math.max(ADAPTIVE_RATE.minRequests, ADAPTIVE_RATE.cut * acceptedSince(windowStart));
  // A reset a whole window off says the window began just now, or, from a server that names the
  // whole window in every 429, nothing of when it began: then the rate comes back within a window
  // or two to what the key took from this budget over the last whole window, so that one such
  // 429 cannot leave it crawling. Otherwise the share measured is this budget's part of the
  // limit, and it climbs back from the cut (a faster return there costs more 429s than time).
  const wholeWindow = windowEnd - now > limit.windowMs - rounding;
  const recover = wholeWindow ? Math.min(limit.requests, acceptedSince(now - limit.windowMs - rounding)) : 0;
  state.throttle = { at: now, share, recover: Math.max(share, recover) };
}

/**
 * How many of a budget's requests go at once when the pause of the first 429 of an episode ends at
 * `resetAt`: all it has to send then (`pending`: those waiting and those the 429s refused, which
 * ask again), when they fit in its share of the fresh window; otherwise none, and the pacing starts
 * at the reset. Every process on the key was sending at the full pace, so all met that full window
 * and pause to its reset, and their shares of the fresh one add up to at most `cut` of it: a batch
 * that fits ends there, where pacing would stretch its end by up to a window. A longer queue ends
 * no sooner for a burst (the pacing resumes after it as if the share had been paced from the
 * reset). After a 429 while lowered rates are in force, the processes' rates add up to about the
 * limit again: a burst there fills the window early, and more of the requests sent in the rest of
 * it meet a 429.
 */
export function burstAtReset(
  limit: RateLimit,
  throttle: LedgerState["throttle"],
  resetAt: number,
  pending: number,
) {
  return pending <= Math.floor(ratePerWindow(limit, throttle, resetAt)) ? pending : 0;
}

/** Forgets a throttle once the rate is back at the full limit. */
export function settleThrottle(state: LedgerState, limit: RateLimit, now: number): void {
  if (state.throttle && ratePerWindow(limit, state.throttle, now) >= limit.requests)
    state.throttle = undefined;
}
