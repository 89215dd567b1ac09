// A fixed-window request budget per key id, like the real service's 10 requests per 10 seconds.
import type { RateLimit } from "../types";

export type RateDecision = { allowed: true } | { allowed: false; resetSeconds: number };

export class FixedWindowRateLimiter {
  private readonly windows = new Map<string, { startedAt: number; count: number }>();

  constructor(
    private limit: RateLimit | false,
    private readonly now: () => number,
  ) {}

  /** A new limit starts every key on a fresh window. */
  setLimit(limit: RateLimit | false): void {
    this.limit = limit;
    this.windows.clear();
  }

  /** Counts one request of `keyId` and says whether it fits the current window. */
  take(keyId: string): RateDecision {
    if (this.limit === false) return { allowed: true };
    const now = this.now();
    let window = this.windows.get(keyId);
    if (window === undefined || now >= window.startedAt + this.limit.windowMs) {
      window = { startedAt: now, count: 0 };
      this.windows.set(keyId, window);
    }
    window.count += 1;
    if (window.count <= this.limit.requests) return { allowed: true };
    // Whole seconds, rounded up, as the real service sends: a client that waits this long finds a
    // fresh window. A window that is not whole seconds (a scaled one in tests and the benchmark)
    // gets milliseconds instead, so the rounding does not stretch it (a 0.5 s window told "1").
    const leftMs = window.startedAt + this.limit.windowMs - now;
    const resetSeconds =
      this.limit.windowMs % 1000 === 0
        ? Math.max(1, Math.ceil(leftMs / 1000))
        : Math.max(1, Math.ceil(leftMs)) / 1000;
    return { allowed: false, resetSeconds };
  }
}
