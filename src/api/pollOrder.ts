/*
 * Which waiting poll a free slot goes to when the key's budget binds. Polls only wait for a slot
 * when more services are due than the budget allows; otherwise each is served when it asks (the
 * constant poller). The choice uses what each service's own wait says, never earlier transitions.
 * docs/performance.md has the reasoning.
 */

/** What a waiter's poll tells the budget about its service's wait; both on the waiter's own clock. */
export interface PollHint {
  /** How long the service has been on its way: since its command was answered, or since the wait began. */
  waitedMs(): number;
  /** How long since a read (or a command's answer) last showed it not there yet. */
  unseenMs(): number;
}

/**
 * The part of a service's wait that must have passed since it was last seen before it is polled
 * again ahead of a service waiting less long: its polls come at least 1.25 x its age apart.
 */
export const RIPE_SHARE = 0.2;

/**
 * Where a poll stands in the queue, lower first: the polls whose services were not seen within
 * the last `RIPE_SHARE` of their wait, by longest wait; then the others, by longest wait.
 *
 * Services started together mostly end in the order they started, so the longest wait is the
 * likeliest done; the spacing keeps the longest waits from taking every slot, so a short
 * transition started later is still seen while long ones run.
 */
export function pollRank(hint: PollHint): number {
  const waited = hint.waitedMs();
  const ripe = hint.unseenMs() >= RIPE_SHARE * waited;
  return (ripe ? 0 : NOT_RIPE) - waited;
}

/**
 * A poll's rank as a time on the clock `now` is read from: it stays put while the poll waits, so
 * that budgets sharing a file can compare the ranks they wrote at different moments.
 */
export function pollKey(hint: PollHint, now: number): number {
  return now + pollRank(hint);
}

/** Ranks polls seen recently after every other: no wait comes near this many ms (a century). */
const NOT_RIPE = 100 * 365 * 24 * 3600 * 1000;

/** The index of the poll to serve: the lowest `pollRank`, ties to the earlier in the list (the poll that asked first). */
export function nextPoll(hints: readonly PollHint[]): number {
  let best = -1;
  let bestRank = Infinity;
  hints.forEach((hint, index) => {
    const rank = pollRank(hint);
    if (rank < bestRank) {
      best = index;
      bestRank = rank;
    }
  });
  return best;
}
