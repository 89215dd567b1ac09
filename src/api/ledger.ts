/** The state a rate budget keeps, and the ledgers that hold it (see `fileLedger.ts` for the shared one). */

/** What the budget's grants are recorded in: this process's memory, or a file shared by processes. */
export interface LedgerState {
  /** Grant times, ascending; may lie in the future (reserved by waiters). */
  grants: number[];
  /** No grant before this time (a 429 told us the window is spent). */
  blockedUntil: number;
}

/** Where a budget keeps its state; `update` is atomic (across processes, for a shared ledger). */
export interface BudgetLedger {
  /** Runs `change` on the state atomically (across processes, for a shared ledger) and returns its result. */
  update<T>(change: (state: LedgerState) => T): T;
}

/** The ledger of one process: plain memory. */
export class MemoryLedger implements BudgetLedger {
  private readonly state: LedgerState;
  constructor(initial: LedgerState = { grants: [], blockedUntil: 0 }) {
    this.state = initial;
  }
  update<T>(change: (state: LedgerState) => T): T {
    return change(this.state);
  }
}
