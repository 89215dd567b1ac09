import { burstAt, learnFromThrottle, ratePerWindow, settleThrottle } from "./adaptiveRate";
import type { Clock } from "./clock";
import { LEDGER_RETRY_MS, LedgerAccess } from "./ledgerAccess";
import { MemoryLedger, type BudgetLedger, type LedgerState } from "./ledger";
import type { RateLimit } from "./rateLimit";

export { ADAPTIVE_RATE } from "./adaptiveRate";

/** Thrown when the budget's next slot lies past the caller's deadline: nothing was sent. */
export class BudgetDeadlineError extends Error {
  /** When the request could have been sent, in clock time. */
  readonly nextSlotAt: number;
  constructor(nextSlotAt: number, deadline: number, detail?: string) {
    super(
      detail ??
        `the client's rate budget has no slot before the deadline (next slot in ` +
          `${Math.ceil((nextSlotAt - deadline) / 1000)} s past it)`,
    );
    this.name = "BudgetDeadlineError";
    this.nextSlotAt = nextSlotAt;
  }
}

/** Marks a request as a waiter's poll, and says how likely it is to find its service done (0 to 1). */
export interface PollHint {
  likelihood(): number;
}

/** The safety margin added to each window: 100 ms for the real 10 s window, 1 % of shorter ones (at least 20 ms). */
export function defaultMarginMs(limit: RateLimit): number {
  return Math.min(100, Math.max(20, limit.windowMs / 100));
}

interface PollWaiter {
  since: number;
  deadline: number | undefined;
  hint: PollHint;
  /** Called with the grant's time. */
  resolve(at: number): void;
  reject(error: Error): void;
}

/**
 * A budget of `requests` grants in any span of `windowMs` (+ a safety margin for network
 * jitter), which also satisfies a server counting in fixed windows; within it, grants are paced
 * at the rate the server's 429s leave this budget (see adaptiveRate.ts).
 *
 * Two classes of request. Commands and first reads (every request without a `PollHint`) reserve
 * the next slot at once, in arrival order. Polls reserve nothing ahead: a poll is granted only
 * when a slot is free and no reservation is waiting, and among the polls waiting then, the one
 * most likely to find its service done goes first (ties in arrival order).
 *
 * After a 429 the whole budget pauses until the server's reset, since every caller shares the
 * same key: requests already waiting for a slot included (a waiter whose slot falls inside a
 * pause takes a new one after it); and the rate adapts.
 */
export class RateBudget {
  /** The requests per window this budget hands out at most. */
  readonly limit: RateLimit;
  private readonly clock: Clock;
  private readonly marginMs: number;
  private readonly access: LedgerAccess;
  private polls: PollWaiter[] = [];
  private wakeAt = Infinity;
  /** Totals for diagnostics and the benchmark. */
  readonly stats = { granted: 0, waited: 0, waitedMs: 0, throttles: 0 };

  constructor(limit: RateLimit, clock: Clock, marginMs = defaultMarginMs(limit), ledger?: BudgetLedger) {
    this.limit = limit;
    this.clock = clock;
    this.marginMs = marginMs;
    this.access = new LedgerAccess(ledger ?? new MemoryLedger(), clock);
  }

  /**
   * Waits for a slot and takes it. Resolves with the time waited, in ms. With a deadline, throws
   * `BudgetDeadlineError` (reserving nothing) when the slot lies past it; a poll that is still
   * waiting when its deadline comes fails then.
   */
  async acquire(deadline?: number, poll?: PollHint): Promise<number> {
    return (await this.take(deadline, poll)).waitedMs;
  }

  /**
   * `acquire`, and a way to say when the answer came: the grant then counts from that time, a
   * bound on when the server saw the request however long it took to get there. A server window
   * that opened with it cannot still be open when the slot that needs it closed comes round, so
   * the margin only has to cover clock rounding, not network or load jitter.
   */
  async take(deadline?: number, poll?: PollHint): Promise<{ waitedMs: number; answered(): void }> {
    const started = this.clock.now();
    const at = poll ? await this.acquirePoll(deadline, poll) : await this.acquireSlot(deadline);
    return {
      waitedMs: at - started,
      answered: () => {
        const now = this.clock.now();
        if (now > at) this.access.later((state) => moveGrant(state, at, now), now + this.limit.windowMs);
      },
    };
  }

  /**
   * Pauses every grant until `timeMs` (a 429 told us the window is spent, and when it resets),
   * and lowers the rate to this budget's share of the key.
   */
  blockUntil(timeMs: number): void {
    if (!Number.isFinite(timeMs)) return;
    const now = this.clock.now();
    this.access.later((state) => {
      state.blockedUntil = Math.max(state.blockedUntil, timeMs);
      if (learnFromThrottle(state, this.limit, now, timeMs)) this.stats.throttles++;
      // The waiters give their slots back and queue again after the pause, paced at the new
      // rate from the last request sent (the reservations they give back do not count).
      const sent = state.grants.filter((grant) => grant <= now);
      const spacing = this.limit.windowMs / ratePerWindow(this.limit, state.throttle, now);
      state.paceAt = Math.max(state.blockedUntil, (sent[sent.length - 1] ?? -Infinity) + spacing);
    }, undefined);
  }

  /** The requests per window this budget paces to at `now` (the limit unless a 429 lowered it). */
  rate(now = this.clock.now()): number {
    return this.access.peek((state) => ratePerWindow(this.limit, state.throttle, now), this.limit.requests);
  }

  /** The time the next grant would happen, without taking it. */
  nextGrantAt(now = this.clock.now()): number {
    return this.access.peek((state) => this.slotAt(state, now), now);
  }

  private async acquireSlot(deadline: number | undefined): Promise<number> {
    const started = this.clock.now();
    let at: number | undefined;
    for (;;) {
      if (at === undefined) {
        const now = this.clock.now();
        const reservedNow = this.access.change((state) => {
          const next = this.slotAt(state, now);
          if (deadline === undefined || next <= deadline) this.reserve(state, next);
          return next;
        }, deadline);
        // Awaited only when the ledger was busy: a ready slot starts its wait in this turn.
        const slot = reservedNow instanceof Promise ? await reservedNow : reservedNow;
        if (deadline !== undefined && slot > deadline) throw new BudgetDeadlineError(slot, deadline);
        at = slot;
      }
      const now = this.clock.now();
      if (at > now) await this.clock.sleep(at - now);
      const reserved = at;
      // A 429 seen while we waited pauses us too: give the slot back and queue after the pause.
      // Grants re-dated to their answers since we reserved may push our slot a little later.
      const admittedNow = this.access.change((state) => {
        if (state.blockedUntil > reserved) {
          this.release(state, reserved);
          return undefined;
        }
        const admit = this.admitAt(state, reserved);
        if (admit > reserved) moveGrant(state, reserved, admit);
        return admit;
      }, deadline);
      const admitted = admittedNow instanceof Promise ? await admittedNow : admittedNow;
      if (admitted === undefined) {
        at = undefined;
        continue;
      }
      if (admitted > reserved) {
        if (deadline !== undefined && admitted > deadline) {
          this.access.later((state) => this.release(state, admitted), deadline);
          throw new BudgetDeadlineError(admitted, deadline);
        }
        at = admitted;
        continue;
      }
      this.granted(reserved - started);
      return reserved;
    }
  }

  /** The earliest time from `at` on at which the grant reserved at `at` fits the window (later reservations not counted). */
  private admitAt(state: LedgerState, at: number): number {
    const earlier = state.grants.filter((grant) => grant <= at);
    earlier.splice(earlier.lastIndexOf(at), 1);
    const { requests, windowMs } = this.limit;
    if (earlier.length < requests) return at;
    return Math.max(at, earlier[earlier.length - requests] + windowMs + this.marginMs);
  }

  private slotAt(state: LedgerState, now: number): number {
    const { requests, windowMs } = this.limit;
    forget(state, now - windowMs - this.marginMs);
    settleThrottle(state, this.limit, now);
    const { grants } = state;
    // Never before an earlier reservation: grants go out in arrival order.
    let at = Math.max(now, state.blockedUntil, grants[grants.length - 1] ?? -Infinity);
    // Paced at the rate due then: slots reserved ahead follow the curve back up.
    const rate = ratePerWindow(this.limit, state.throttle, Math.max(at, state.paceAt));
    at = Math.max(at, state.paceAt - (burstAt(this.limit, rate) - 1) * (windowMs / rate));
    if (grants.length >= requests) {
      at = Math.max(at, grants[grants.length - requests] + windowMs + this.marginMs);
    }
    return at;
  }

  /** Gives a reserved grant back, and its place in the pacing. */
  private release(state: LedgerState, at: number): void {
    const index = state.grants.lastIndexOf(at);
    if (index < 0) return;
    state.grants.splice(index, 1);
    // A slot given back for a pause leaves the pacing alone: the 429 restarted it.
    if (at < state.blockedUntil) return;
    const spacing = this.limit.windowMs / ratePerWindow(this.limit, state.throttle, at);
    state.paceAt = Math.max(state.blockedUntil, state.paceAt - spacing);
  }

  private reserve(state: LedgerState, at: number): void {
    state.grants.push(at);
    state.paceAt =
      Math.max(state.paceAt, at) + this.limit.windowMs / ratePerWindow(this.limit, state.throttle, at);
  }

  private granted(waitedMs: number): void {
    this.stats.granted++;
    if (waitedMs > 0) {
      this.stats.waited++;
      this.stats.waitedMs += waitedMs;
    }
  }

  private acquirePoll(deadline: number | undefined, hint: PollHint): Promise<number> {
    const now = this.clock.now();
    const at = this.nextGrantAt(now);
    if (deadline !== undefined && at > deadline) return Promise.reject(new BudgetDeadlineError(at, deadline));
    return new Promise((resolve, reject) => {
      this.polls.push({ since: now, deadline, hint, resolve, reject });
      this.drain();
    });
  }

  /** Grants free slots to the waiting polls, most likely done first; then sleeps until the next chance. */
  private drain(): void {
    for (;;) {
      const now = this.clock.now();
      const expired = this.polls.filter((w) => w.deadline !== undefined && w.deadline < now);
      if (expired.length) {
        this.polls = this.polls.filter((w) => !expired.includes(w));
        const at = this.nextGrantAt(now);
        for (const w of expired) w.reject(new BudgetDeadlineError(at, w.deadline!));
      }
      if (!this.polls.length) return;
      const busyUntil = this.access.peek((state) => {
        const slot = this.slotAt(state, now);
        if (slot <= now) this.reserve(state, now);
        return slot;
      }, now + LEDGER_RETRY_MS);
      if (busyUntil > now) {
        const deadlines = this.polls.map((w) => w.deadline ?? Infinity);
        this.wake(Math.min(busyUntil, ...deadlines.map((d) => d + 1)), now);
        return;
      }
      let best = 0;
      let bestScore = -Infinity;
      this.polls.forEach((w, index) => {
        const score = w.hint.likelihood();
        if (score > bestScore) [best, bestScore] = [index, score];
      });
      const [waiter] = this.polls.splice(best, 1);
      this.granted(now - waiter.since);
      waiter.resolve(now);
    }
  }

  private wake(at: number, now: number): void {
    if (this.wakeAt <= at && this.wakeAt > now) return; // an earlier wake-up is already on its way
    this.wakeAt = at;
    void this.clock.sleep(Math.max(0, at - now)).then(() => {
      if (this.wakeAt === at) this.wakeAt = Infinity;
      this.drain();
    });
  }
}

/** Re-dates a grant (kept in order); nothing when it was already forgotten or released. */
function moveGrant(state: LedgerState, from: number, to: number): void {
  const index = state.grants.lastIndexOf(from);
  if (index < 0) return;
  state.grants.splice(index, 1);
  let insert = state.grants.length;
  while (insert > 0 && state.grants[insert - 1] > to) insert--;
  state.grants.splice(insert, 0, to);
}

/** Drops grants that no longer count against any future window. */
function forget(state: LedgerState, horizon: number): void {
  let drop = 0;
  while (drop < state.grants.length && state.grants[drop] <= horizon) drop++;
  if (drop > 0) state.grants = state.grants.slice(drop);
}
