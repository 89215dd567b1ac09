import type { Clock } from "./clock";

/** A rate budget's state, kept in this process's memory or in a file shared by processes. */
export interface LedgerState {
  /** Grant times, ascending; may lie in the future (reserved by waiters). */
  grants: number[];
  /** No grant before this time (a 429's reset). */
  blockedUntil: number;
  /** When the next grant is due at the current rate (the GCRA's theoretical arrival time). */
  paceAt: number;
  /** How many 429s paused the budget: a request that reserved before the latest one queues again. */
  pauses: number;
  /** While the rate is below the limit: the last 429's time, the share then and the share it returns to. */
  throttle: { at: number; share: number; recover?: number } | undefined;
  /** Each sharing budget's first waiting poll: its rank as a time (`pollKey`) and when it was last said. */
  bids: { id: string; key: number; at: number }[];
}

/** A state with nothing in it. */
export function emptyState(): LedgerState {
  return { grants: [], blockedUntil: 0, paceAt: 0, pauses: 0, throttle: undefined, bids: [] };
}

/** What a shared ledger's `update` returns, having done nothing, while another process holds its lock. */
export const LEDGER_BUSY = Symbol("ledger busy");

/** Where a budget keeps its state. */
export interface BudgetLedger {
  /** Runs `change` on the state atomically and returns its result; never waits. */
  update<T>(change: (state: LedgerState) => T): T | typeof LEDGER_BUSY;
}

/**
 * Re-dates a grant, keeping the grants in time order. One already forgotten or released stays so,
 * unless `lost` says it is still to be sent (a shared file started afresh lost it).
 */
export function moveGrant(
  state: LedgerState,
  from: number,
  to: number,
  lost: "recount" | "ignore" = "ignore",
): void {
  const index = state.grants.lastIndexOf(from);
  if (index < 0 && lost === "ignore") return;
  if (index >= 0) state.grants.splice(index, 1);
  state.grants.push(to);
  state.grants.sort((a, b) => a - b);
}

/** The ledger of one process: plain memory. */
export class MemoryLedger implements BudgetLedger {
  constructor(private readonly state: LedgerState = emptyState()) {}
  update<T>(change: (state: LedgerState) => T): T {
    return change(this.state);
  }
}

/** Thrown when the budget's next slot lies past the caller's deadline: nothing was sent. */
export class BudgetDeadlineError extends Error {
  constructor(
    /** When the request could have been sent, in clock time. */
    readonly nextSlotAt: number,
    deadline: number,
    message = `the client's rate budget has no slot before the deadline (next slot in ` +
      `${Math.ceil((nextSlotAt - deadline) / 1000)} s past it)`,
  ) {
    super(message);
    this.name = "BudgetDeadlineError";
  }
}

/** The longest pause between two tries of a shared ledger another process holds locked. */
export const LEDGER_RETRY_MS = 16;

/** Reaches a ledger without blocking: at once when it is free, else after short async pauses on the clock. */
export class LedgerAccess {
  constructor(
    private readonly clock: Clock,
    private readonly ledger: BudgetLedger = new MemoryLedger(),
  ) {}

  /** Runs `change` now when the ledger is free (so a caller's wait starts in this turn), else never past `deadline`. */
  change<T>(change: (state: LedgerState) => T, deadline: number | undefined): T | Promise<T> {
    const result = this.ledger.update(change);
    return result === LEDGER_BUSY ? this.changeWhenFree(change, deadline) : result;
  }

  /** `change` for callers that do not wait: a lost re-dating or release costs one window at most. */
  later(change: (state: LedgerState) => void, deadline: number | undefined): void {
    void (async () => this.change(change, deadline))().catch(() => undefined);
  }

  /** Reads the ledger now; `otherwise` while another process holds it locked. */
  peek<T>(read: (state: LedgerState) => T, otherwise: T): T {
    const result = this.ledger.update(read);
    return result === LEDGER_BUSY ? otherwise : result;
  }

  // Ends without a deadline too: a shared ledger gives up a lock held too long.
  private async changeWhenFree<T>(change: (state: LedgerState) => T, deadline = Infinity): Promise<T> {
    for (let pauseMs = 1; ; pauseMs = Math.min(2 * pauseMs, LEDGER_RETRY_MS)) {
      const now = this.clock.now();
      if (now >= deadline) {
        const why = "the client's rate budget stayed locked by another process past the deadline";
        throw new BudgetDeadlineError(now, deadline, why);
      }
      await this.clock.sleep(Math.min(pauseMs, deadline - now));
      const result = this.ledger.update(change);
      if (result !== LEDGER_BUSY) return result;
    }
  }
}
