import { randomUUID } from "node:crypto";
import { sleepUnlessAborted, untilAborted } from "./abort";
import { burstAtReset, learnFromThrottle, ratePerWindow, settleThrottle } from "./adaptiveRate";
import type { Clock } from "./clock";
import {
  BudgetDeadlineError,
  LEDGER_RETRY_MS,
  LedgerAccess,
  moveGrant,
  type BudgetLedger,
  type LedgerState,
} from "./ledger";
import { nextPoll, pollKey, type PollHint } from "./pollOrder";
import type { RateLimit } from "./rateLimit";

export { ADAPTIVE_RATE } from "./adaptiveRate";
export { BudgetDeadlineError } from "./ledger";
export type { PollHint } from "./pollOrder";

/** The safety margin added to each window: 100 ms for the real 10 s window, 1 % of shorter ones (at least 20 ms). */
export function defaultMarginMs(limit: RateLimit): number {
  return Math.min(100, Math.max(20, limit.windowMs / 100));
}

/** A slot taken: the ms waited, and `answered()` to count it from its answer (the server saw it by then). */
export interface Grant {
  waitedMs: number;
  answered(): void;
}

interface PollWaiter {
  deadline: number | undefined;
  hint: PollHint;
  resolve(grantedAt: number): void;
  reject(error: Error): void;
}

/**
 * At most `requests` grants in any `windowMs` (plus a margin), paced at the rate 429s leave the key
 * (docs/rate-limits.md). Commands and first reads reserve the next slot in arrival order; polls take
 * only a free slot, in `nextPoll`'s order across the ledger; a 429 pauses every request until its reset.
 */
export class RateBudget {
  private polls: PollWaiter[] = [];
  private wakeAt = Infinity;
  /** Requests of this budget waiting for a slot, and those refused by 429s of the pause in force. */
  private waiting = 0;
  private refused = { until: 0, count: 0, first: false };
  /** The grants that go at once at the end of the pause `after`, before the pacing (polls excepted). */
  private burst = { after: -Infinity, count: 0 };
  private readonly access: LedgerAccess;
  /** Names this budget's bid in a shared state; `step` is one slot at the full limit. */
  private readonly id = randomUUID();
  protected readonly step: number;

  constructor(
    /** The requests per window this budget hands out at most. */
    readonly limit: RateLimit,
    private readonly clock: Clock,
    private readonly marginMs = defaultMarginMs(limit),
    ledger?: BudgetLedger,
  ) {
    this.access = new LedgerAccess(clock, ledger);
    this.step = limit.windowMs / limit.requests;
  }

  /**
   * Waits for a slot and takes it, or throws `BudgetDeadlineError` when no slot comes by `deadline`.
   * When `signal` aborts, the wait ends at once with its reason and gives its slot back.
   */
  async take(deadline?: number, poll?: PollHint, signal?: AbortSignal): Promise<Grant> {
    const started = this.clock.now();
    this.waiting++;
    const at = await (
      poll ? this.acquirePoll(deadline, poll, signal) : this.acquireSlot(deadline, signal)
    ).finally(() => this.waiting--);
    return {
      waitedMs: at - started,
      answered: () => {
        const now = this.clock.now();
        if (now > at) this.access.later((state) => moveGrant(state, at, now), now + this.limit.windowMs);
      },
    };
  }

  /** Pauses every grant until `timeMs` (a 429's reset) and lowers the rate to this budget's share. */
  blockUntil(timeMs: number): void {
    if (!Number.isFinite(timeMs)) return;
    const now = this.clock.now();
    this.access.later((state) => {
      state.blockedUntil = Math.max(state.blockedUntil, timeMs);
      state.pauses++;
      // The first 429 of an episode is one that finds no lowered rate in force, or one more of the
      // pause such a 429 began.
      const samePause = this.refused.until > now;
      settleThrottle(state, this.limit, now);
      const first = samePause ? this.refused.first : !state.throttle;
      learnFromThrottle(state, this.limit, now, timeMs);
      const count = (samePause ? this.refused.count : 0) + 1;
      this.refused = { until: state.blockedUntil, count, first };
      const burst = first
        ? burstAtReset(this.limit, state.throttle, state.blockedUntil, this.waiting + count)
        : 0;
      this.burst = { after: state.blockedUntil, count: burst };
      // Waiters re-queue from the server's reset (its window is fresh then), paced at the new
      // rate: reservations made at the old rate are dropped, so they cannot all go out together
      // when the pause ends. Those granted while the ledger was locked were sent: they stay.
      const appliedAt = this.clock.now();
      state.grants = state.grants.filter((grant) => grant <= appliedAt);
      state.paceAt = state.blockedUntil;
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

  private async acquireSlot(deadline: number | undefined, signal?: AbortSignal): Promise<number> {
    let at: number | undefined;
    let pauses = 0;
    for (;;) {
      signal?.throwIfAborted();
      if (at === undefined) {
        const now = this.clock.now();
        const reserving = this.access.change((state) => {
          const next = this.slotAt(state, now);
          if (deadline === undefined || next <= deadline) this.reserve(state, next);
          pauses = state.pauses;
          return next;
        }, deadline);
        // Awaited only when the ledger was busy: a ready slot starts its wait in this turn.
        const slot = reserving instanceof Promise ? await reserving : reserving;
        if (deadline !== undefined && slot > deadline) throw new BudgetDeadlineError(slot, deadline);
        at = slot;
      }
      const now = this.clock.now();
      const reserved = at;
      if (reserved > now)
        await sleepUnlessAborted(this.clock, reserved - now, signal).catch((error: unknown) => {
          this.access.later((state) => this.release(state, reserved), deadline);
          throw error;
        });
      // A 429 since we reserved dropped our slot (a shared file started afresh may have lost the
      // count, not the pause): we queue again at its rate. Grants re-dated to their answers may
      // push us later.
      const admitting = this.access.change((state) => {
        if (state.pauses !== pauses || state.blockedUntil > reserved) return undefined;
        const admit = this.admitAt(state, reserved);
        moveGrant(state, reserved, admit, "recount");
        return admit;
      }, deadline);
      const admitted = admitting instanceof Promise ? await admitting : admitting;
      if (admitted === reserved) return reserved;
      if (admitted !== undefined && deadline !== undefined && admitted > deadline) {
        this.access.later((state) => this.release(state, admitted), deadline);
        throw new BudgetDeadlineError(admitted, deadline);
      }
      at = admitted;
    }
  }

  /** The earliest time from `at` at which the grant reserved at `at` fits the window (later ones not counted). */
  private admitAt(state: LedgerState, at: number): number {
    const earlier = state.grants.filter((grant) => grant <= at);
    const own = earlier.lastIndexOf(at);
    if (own >= 0) earlier.splice(own, 1);
    return Math.max(at, this.windowFreeAt(earlier));
  }

  private slotAt(state: LedgerState, now: number, poll = false): number {
    // Grants are kept in time order, so this drops exactly those no future window counts.
    state.grants = state.grants.filter((grant) => grant > now - this.limit.windowMs - this.marginMs);
    settleThrottle(state, this.limit, now);
    const at = Math.max(now, state.blockedUntil, state.grants[state.grants.length - 1] ?? -Infinity);
    const burst = !poll && this.inBurst(state, at);
    return Math.max(at, burst ? -Infinity : state.paceAt, this.windowFreeAt(state.grants));
  }

  /** Whether a grant at `at` is among those that go at once at the end of the last pause. */
  private inBurst(state: LedgerState, at: number): boolean {
    const { after, count } = this.burst;
    if (after !== state.blockedUntil || at >= after + this.limit.windowMs) return false;
    return state.grants.filter((grant) => grant >= after).length < count;
  }

  /** When the oldest of the last `requests` of these (ascending) grants leaves the window. */
  private windowFreeAt(grants: number[]): number {
    const { requests, windowMs } = this.limit;
    return grants.length < requests ? -Infinity : grants[grants.length - requests] + windowMs + this.marginMs;
  }

  /** Whether a window's allowance may go at once: only when a store counts every process on the key. */
  protected bursts(): boolean {
    return false;
  }

  /** The gap after a grant at the rate due at `at`: polls keep it even in a burst (docs/rate-limits.md). */
  private spacing(state: LedgerState, at: number, poll = false): number {
    if (this.bursts() && !state.throttle && !poll) return 0;
    return this.limit.windowMs / ratePerWindow(this.limit, state.throttle, at);
  }

  /** Gives a reserved grant back, and its place in the pacing unless a 429 restarted the pacing. */
  private release(state: LedgerState, at: number): void {
    const index = state.grants.lastIndexOf(at);
    if (index < 0) return;
    state.grants.splice(index, 1);
    if (at >= state.blockedUntil)
      state.paceAt = Math.max(state.blockedUntil, state.paceAt - this.spacing(state, at));
  }

  private reserve(state: LedgerState, at: number, poll = false): void {
    state.grants.push(at);
    state.paceAt = Math.max(state.paceAt, at) + this.spacing(state, at, poll);
  }

  private acquirePoll(deadline: number | undefined, hint: PollHint, signal?: AbortSignal): Promise<number> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    const now = this.clock.now();
    const at = this.nextGrantAt(now);
    if (deadline !== undefined && at > deadline) return Promise.reject(new BudgetDeadlineError(at, deadline));
    let waiter: PollWaiter | undefined;
    const queued = new Promise<number>((resolve, reject) => {
      this.polls.push((waiter = { deadline, hint, resolve, reject }));
      this.drain();
    });
    // An aborted poll leaves the queue at once (one granted or failed has left it already).
    return !signal
      ? queued
      : untilAborted(queued, signal).catch((error: unknown) => {
          this.polls = this.polls.filter((w) => w !== waiter);
          throw error;
        });
  }

  /**
   * Grants free slots to the waiting polls in `nextPoll`'s order while no budget sharing the state
   * bids a poll ranked before it; a bid lapses in two slots, so each budget says it every slot.
   */
  private drain(): void {
    for (;;) {
      const now = this.clock.now();
      for (const w of this.polls.filter((w) => w.deadline !== undefined && w.deadline < now)) {
        this.polls.splice(this.polls.indexOf(w), 1);
        w.reject(new BudgetDeadlineError(this.nextGrantAt(now), w.deadline!));
      }
      if (!this.polls.length) return;
      const first = nextPoll(this.polls.map((w) => w.hint));
      const bid = { id: this.id, key: pollKey(this.polls[first].hint, now), at: now };
      const busyUntil = this.access.peek((state) => {
        state.bids = state.bids.filter((b) => b.id !== this.id && b.at > now - 2 * this.step);
        const slot = this.slotAt(state, now, true);
        const behind = state.bids.some((b) => b.key < bid.key);
        if (slot <= now && !behind) {
          this.reserve(state, now, true);
          return now;
        }
        state.bids.push(bid);
        return slot > now ? slot : now + this.step / 4;
      }, now + LEDGER_RETRY_MS);
      if (busyUntil > now) {
        const deadlines = this.polls.map((w) => (w.deadline ?? Infinity) + 1);
        return this.wake(Math.min(busyUntil, now + this.step, ...deadlines), now);
      }
      const [waiter] = this.polls.splice(first, 1);
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
