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
 * The index of the poll to serve: the one whose service has waited longest, among those not seen
 * within the last `RIPE_SHARE` of their wait; if all were seen that recently, the one waiting
 * longest anyway. Ties go to the earlier in the list (the poll that asked first).
 *
 * Services started together mostly end in the order they started, so the longest wait is the
 * likeliest done; the spacing keeps the longest waits from taking every slot, so a short
 * transition started later is still seen while long ones run.
 */
export function nextPoll(hints: readonly PollHint[]): number {
  let best = -1;
  let bestRipe = false;
  let bestWaited = -Infinity;
  hints.forEach((hint, index) => {
    const waited = hint.waitedMs();
    const ripe = hint.unseenMs() >= RIPE_SHARE * waited;
    if ((ripe && !bestRipe) || (ripe === bestRipe && waited > bestWaited)) {
      best = index;
      bestRipe = ripe;
      bestWaited = waited;
    }
  });
  return best;
}
