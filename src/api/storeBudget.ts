import { randomUUID } from "node:crypto";
import { sleepUnlessAborted } from "./abort";
import { systemClock, type Clock } from "./clock";
import { BudgetDeadlineError, type BudgetLedger } from "./ledger";
import { pollRank, type PollHint } from "./pollOrder";
import { defaultMarginMs, RateBudget, type Grant } from "./rateBudget";
import type { RateLimit } from "./rateLimit";
import { RedisBudget } from "./redisBudget";
import { storeKeyPrefix, type StoreAddress } from "./storeAddress";

/**
 * A rate budget whose grants also need the key's store: the process's own budget orders its
 * requests, then the store admits each across every machine. Once the store fails, the process's
 * own budget goes on alone.
 */
export class StoreBudget extends RateBudget {
  constructor(
    limit: RateLimit,
    private readonly storeClock: Clock,
    ledger: BudgetLedger | undefined,
    private readonly store: RedisBudget,
    marginMs = defaultMarginMs(limit),
  ) {
    super(limit, storeClock, marginMs, ledger);
  }

  override async take(deadline?: number, poll?: PollHint, signal?: AbortSignal): Promise<Grant> {
    const local = await super.take(deadline, poll, signal);
    const nonce = randomUUID();
    try {
      const waitedMs = local.waitedMs + (await this.admitted(deadline, poll, nonce, signal));
      return {
        waitedMs,
        answered: () => {
          local.answered();
          void this.store.answered(nonce);
        },
      };
    } catch (error) {
      local.answered(); // the local grant stays counted, as for a request that went out
      throw error;
    }
  }

  /** While the store works, it counts every machine's requests: a fresh window may go at once. */
  protected override bursts(): boolean {
    return this.store.working;
  }

  /** Closes the store's connection (tests). */
  closeStore(): Promise<void> {
    return this.store.close();
  }

  override blockUntil(timeMs: number): void {
    super.blockUntil(timeMs);
    if (Number.isFinite(timeMs)) void this.store.block(timeMs - this.storeClock.now());
  }

  /** Waits for the store's admission, then for its window to take the send: the ms waited (0 once the store failed). */
  private async admitted(
    deadline: number | undefined,
    poll: PollHint | undefined,
    nonce: string,
    signal: AbortSignal | undefined,
  ): Promise<number> {
    const started = this.storeClock.now();
    for (let slotTaken = false; ;) {
      const now = this.storeClock.now();
      const maxWaitMs = deadline === undefined ? Infinity : deadline - now;
      const answer = slotTaken
        ? await this.store.sent(nonce)
        : poll
          ? await this.store.admitPoll(pollRank(poll), nonce)
          : await this.store.admit(maxWaitMs, nonce);
      if (!answer) return this.storeClock.now() - started;
      if (answer.waitMs > maxWaitMs) throw new BudgetDeadlineError(now + answer.waitMs, deadline!);
      // A poll not admitted says its bid again each slot (a bid lapses in two), and looks again when
      // the slot it was shown comes: by then a command may hold it.
      const pauseMs = poll && !answer.admitted ? Math.min(answer.waitMs, this.step) : answer.waitMs;
      if (pauseMs > 0) await sleepUnlessAborted(this.storeClock, pauseMs, signal);
      if (answer.admitted && slotTaken && answer.waitMs === 0) return this.storeClock.now() - started;
      if (answer.admitted) slotTaken = true;
    }
  }
}

/** How many windows the store's entries outlive their last use. */
const STORE_TTL_WINDOWS = 3;

/** The budget of one key kept in `address` too, on the system clock; one warning if the store fails. */
export function storeBudget(
  apiUrl: string,
  keyId: string,
  limit: RateLimit,
  ledger: BudgetLedger | undefined,
  address: StoreAddress,
  warn = (message: string) => process.emitWarning(message, { code: "DBCLOUD_BUDGET_STORE" }),
): StoreBudget {
  const ttlMs = STORE_TTL_WINDOWS * limit.windowMs;
  const window = { requests: limit.requests, windowMs: limit.windowMs + defaultMarginMs(limit) };
  const store = new RedisBudget(address, storeKeyPrefix(apiUrl, keyId, limit), window, ttlMs, warn);
  return new StoreBudget(limit, systemClock, ledger, store);
}
