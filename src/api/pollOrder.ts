/*
 * Which waiting poll a free slot goes to when the key's budget binds (otherwise each poll is served
 * when it asks). It uses only what each service's own wait says: docs/performance.md says why.
 */

/** What a waiter's poll tells the budget about its service's wait; both on the waiter's own clock. */
export interface PollHint {
  /** How long the service has been on its way: since its command was answered, or since the wait began. */
  waitedMs(): number;
  /** How long since a read (or a command's answer) last showed it not there yet. */
  unseenMs(): number;
}

/** A service unseen for this share of its wait is ripe: its polls come at least 1.25 x its age apart. */
const RIPE_SHARE = 0.2;
/** Ranks polls seen recently after every other: no wait comes near this many ms (a century). */
const NOT_RIPE = 100 * 365 * 24 * 3600 * 1000;

/**
 * Where a poll stands in the queue, lower first: ripe polls by longest wait, then the others by
 * longest wait. Services started together mostly end in the order they started; the ripeness keeps
 * the longest waits from taking every slot, so a short transition started later is still seen.
 */
export function pollRank(hint: PollHint): number {
  const waited = hint.waitedMs();
  const ripe = hint.unseenMs() >= RIPE_SHARE * waited;
  return (ripe ? 0 : NOT_RIPE) - waited;
}

/** A poll's rank as a time on `now`'s clock: steady while it waits, so budgets sharing a file compare it. */
export function pollKey(hint: PollHint, now: number): number {
  return now + pollRank(hint);
}

/** The index in `hints` (not empty) of the poll to serve: the lowest `pollRank`, ties to the poll that asked first. */
export function nextPoll(hints: readonly PollHint[]): number {
  const ranks = hints.map(pollRank);
  return ranks.reduce((best, rank, index) => (rank < ranks[best] ? index : best), 0);
}
