import { type BudgetLedger, LEDGER_BUSY, type LedgerState, MemoryLedger } from "../../src/api/ledger";

/** A ledger in memory that answers busy while `locked` holds, as a file another process has locked. */
export function lockableLedger(): BudgetLedger & { locked: boolean } {
  const memory = new MemoryLedger();
  const ledger = {
    locked: false,
    update: <T>(change: (state: LedgerState) => T): T | typeof LEDGER_BUSY =>
      ledger.locked ? LEDGER_BUSY : memory.update(change),
  };
  return ledger;
}
