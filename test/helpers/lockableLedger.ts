import {
  type BudgetLedger,
  emptyState,
  LEDGER_BUSY,
  type LedgerState,
  MemoryLedger,
} from "../../src/api/ledger";

/** A ledger in memory (`state`) that answers busy while `locked` holds, as a file another process has locked. */
export function lockableLedger(state: LedgerState = emptyState()): BudgetLedger & { locked: boolean } {
  const memory = new MemoryLedger(state);
  const ledger = {
    locked: false,
    update: <T>(change: (state: LedgerState) => T): T | typeof LEDGER_BUSY =>
      ledger.locked ? LEDGER_BUSY : memory.update(change),
  };
  return ledger;
}
