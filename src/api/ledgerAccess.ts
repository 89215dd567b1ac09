import type { Clock } from "./clock";
import { LedgerBusyError, type BudgetLedger, type LedgerState } from "./ledger";
import { BudgetDeadlineError } from "./rateBudget";

/** The longest pause between two tries of a shared ledger another process holds locked. */
export const LEDGER_RETRY_MS = 16;

/**
 * How a budget reaches its ledger without ever blocking: a change runs at once when the ledger
 * is free, and while another process holds a shared ledger's lock, again after short
 * asynchronous pauses on the budget's clock, never past the caller's deadline.
 */
export class LedgerAccess {
  constructor(
    private readonly ledger: BudgetLedger,
    private readonly clock: Clock,
  ) {}

  /**
   * Runs `change` on the ledger, at once when it is free (so a caller's wait starts in the same
   * turn); while another process holds a shared ledger's lock, tries again after a short
   * asynchronous pause, never past `deadline` (the ledger itself gives up on a lock held too
   * long, so this ends without a deadline too).
   */
  change<T>(change: (state: LedgerState) => T, deadline: number | undefined): T | Promise<T> {
    try {
      return this.ledger.update(change);
    } catch (error) {
      if (!(error instanceof LedgerBusyError)) throw error;
    }
    return this.changeWhenFree(change, deadline);
  }

  private async changeWhenFree<T>(
    change: (state: LedgerState) => T,
    deadline: number | undefined,
  ): Promise<T> {
    for (let pauseMs = 1; ; pauseMs = Math.min(2 * pauseMs, LEDGER_RETRY_MS)) {
      const now = this.clock.now();
      if (deadline !== undefined && now >= deadline) {
        throw new BudgetDeadlineError(
          now,
          deadline,
          "the client's rate budget stayed locked by another process past the deadline",
        );
      }
      await this.clock.sleep(Math.min(pauseMs, (deadline ?? Infinity) - now));
      try {
        return this.ledger.update(change);
      } catch (error) {
        if (!(error instanceof LedgerBusyError)) throw error;
      }
    }
  }

  /** `change` for callers that do not wait for it: done now when the ledger is free, else soon. */
  later(change: (state: LedgerState) => void, deadline: number | undefined): void {
    try {
      // A lost re-dating or release costs one window at most.
      void Promise.resolve(this.change(change, deadline)).catch(() => undefined);
    } catch {
      // The same, thrown at once.
    }
  }

  /** Reads the ledger now; `otherwise` while another process holds it locked. */
  peek<T>(read: (state: LedgerState) => T, otherwise: T): T {
    try {
      return this.ledger.update(read);
    } catch (error) {
      if (error instanceof LedgerBusyError) return otherwise;
      throw error;
    }
  }
}
