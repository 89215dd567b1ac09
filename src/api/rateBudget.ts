import type { Clock } from "./clock";

/** A number of requests per window, e.g. the real service's 10 per 10 s per key. */
export interface RateLimit {
  /** Requests allowed in one window. */
  requests: number;
  /** The window, in ms. */
  windowMs: number;
}

/** The real service's limit: 10 requests per 10 s per key. */
export const DEFAULT_RATE_LIMIT: RateLimit = { requests: 10, windowMs: 10_000 };

/** Parses `10/10s`, `5/1m`, `100/500ms`, or `off` (no client-side budget). */
export function parseRateLimit(text: string): RateLimit | false {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === "off") return false;
  const match = /^(\d+)\s*\/\s*(\d+(?:\.\d+)?)?\s*(ms|s|m)$/.exec(trimmed);
  if (!match) {
    throw new Error(
      `"${text}" is not a rate limit: write it as <requests>/<duration>, e.g. "10/10s", "5/1m" or "off"`,
    );
  }
  const requests = Number(match[1]);
  const amount = match[2] === undefined ? 1 : Number(match[2]);
  const unitMs = match[3] === "ms" ? 1 : match[3] === "s" ? 1000 : 60_000;
  const windowMs = amount * unitMs;
  if (requests < 1 || windowMs <= 0) {
    throw new Error(`"${text}" is not a rate limit: it needs at least 1 request per a positive duration`);
  }
  return { requests, windowMs };
}

export function formatRateLimit(limit: RateLimit | false): string {
  return limit === false
    ? "off"
    : `${limit.requests}/${limit.windowMs % 1000 === 0 ? `${limit.windowMs / 1000}s` : `${limit.windowMs}ms`}`;
}

/** Thrown when the budget's next slot lies past the caller's deadline: nothing was sent. */
export class BudgetDeadlineError extends Error {
  /** When the request could have been sent, in clock time. */
  readonly nextSlotAt: number;
  constructor(nextSlotAt: number, deadline: number) {
    super(
      `the client's rate budget has no slot before the deadline (next slot in ` +
        `${Math.ceil((nextSlotAt - deadline) / 1000)} s past it)`,
    );
    this.name = "BudgetDeadlineError";
    this.nextSlotAt = nextSlotAt;
  }
}

/**
 * A sliding-window budget: at most `requests` grants in any span of `windowMs` (+ a safety
 * margin for network jitter), which also satisfies a server counting in fixed windows.
 * Grants are handed out in arrival order. After a 429 the whole budget pauses until the
 * server's reset, since every caller shares the same key: requests already waiting for a slot
 * included (a waiter whose slot falls inside a pause takes a new one after it).
 */
export class RateBudget {
  /** The requests per window this budget hands out. */
  readonly limit: RateLimit;
  private readonly clock: Clock;
  private readonly marginMs: number;
  /** Grant times, ascending; may lie in the future (reserved by waiters). */
  private grants: number[] = [];
  private blockedUntil = 0;
  /** Totals for diagnostics and the benchmark. */
  readonly stats = { granted: 0, waited: 0, waitedMs: 0 };

  constructor(limit: RateLimit, clock: Clock, marginMs = 100) {
    this.limit = limit;
    this.clock = clock;
    this.marginMs = marginMs;
  }

  /**
   * Reserves the next slot and waits for it. Resolves with the time waited, in ms. With a
   * deadline, throws `BudgetDeadlineError` (reserving nothing) when the slot lies past it.
   */
  async acquire(deadline?: number): Promise<number> {
    const started = this.clock.now();
    for (;;) {
      const now = this.clock.now();
      const at = this.nextGrantAt(now);
      if (deadline !== undefined && at > deadline) throw new BudgetDeadlineError(at, deadline);
      this.grants.push(at);
      if (at > now) await this.clock.sleep(at - now);
      // A 429 seen while we waited pauses us too: give the slot back and queue after the pause.
      if (this.blockedUntil > at) {
        this.release(at);
        continue;
      }
      const waitedMs = at - started;
      this.stats.granted++;
      if (waitedMs > 0) {
        this.stats.waited++;
        this.stats.waitedMs += waitedMs;
      }
      return waitedMs;
    }
  }

  /** Pauses every grant until `timeMs` (a 429 told us the window is spent). */
  blockUntil(timeMs: number): void {
    if (Number.isFinite(timeMs)) this.blockedUntil = Math.max(this.blockedUntil, timeMs);
  }

  /** The time the next grant would happen, without taking it. */
  nextGrantAt(now = this.clock.now()): number {
    this.forget(now);
    // Never before an earlier reservation: grants go out in arrival order.
    let at = Math.max(now, this.blockedUntil, this.grants[this.grants.length - 1] ?? 0);
    const { requests, windowMs } = this.limit;
    if (this.grants.length >= requests) {
      at = Math.max(at, this.grants[this.grants.length - requests] + windowMs + this.marginMs);
    }
    return at;
  }

  private release(at: number): void {
    const index = this.grants.lastIndexOf(at);
    if (index >= 0) this.grants.splice(index, 1);
  }

  /** Drops grants that no longer count against any future window. */
  private forget(now: number): void {
    const horizon = now - this.limit.windowMs - this.marginMs;
    let drop = 0;
    while (drop < this.grants.length && this.grants[drop] <= horizon) drop++;
    if (drop > 0) this.grants = this.grants.slice(drop);
  }
}
