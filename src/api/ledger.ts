/** The state a rate budget keeps, and the ledgers that hold it (see `fileLedger.ts` for the shared one). */

/** What the server's 429s taught: the requests per window that fitted, and when that was learned. */
export interface Throttle {
  /** Clock time of the 429 that set it. */
  at: number;
  /** Requests per window this budget's grants had when the key was full. */
  share: number;
}

/** What the budget's grants are recorded in: this process's memory, or a file shared by processes. */
export interface LedgerState {
  /** Grant times, ascending; may lie in the future (reserved by waiters). */
  grants: number[];
  /** No grant before this time (a 429 told us the window is spent). */
  blockedUntil: number;
  /** Pacing: the time the next grant would be due at the current rate (the GCRA's theoretical arrival time). */
  paceAt: number;
  /** The last throttle, while the rate is still below the limit. */
  throttle: Throttle | undefined;
}

export function emptyState(): LedgerState {
  return { grants: [], blockedUntil: 0, paceAt: 0, throttle: undefined };
}

/** Thrown by a shared ledger whose lock another process holds for now: try again in a moment. */
export class LedgerBusyError extends Error {
  constructor() {
    super("the rate budget's shared ledger is locked by another process");
    this.name = "LedgerBusyError";
  }
}

/** Where a budget keeps its state. */
export interface BudgetLedger {
  /**
   * Runs `change` on the state atomically (across processes, for a shared ledger) and returns
   * its result. Never waits: a shared ledger whose lock is held throws `LedgerBusyError`.
   */
  update<T>(change: (state: LedgerState) => T): T;
}

/** The ledger of one process: plain memory. */
export class MemoryLedger implements BudgetLedger {
  private readonly state: LedgerState;
  constructor(initial: LedgerState = emptyState()) {
    this.state = initial;
  }
  update<T>(change: (state: LedgerState) => T): T {
    return change(this.state);
  }
}
