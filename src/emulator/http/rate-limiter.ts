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
    // Rounded up as the real service rounds its 10 s window: to whole seconds, a tenth of it. A
    // scaled whole-second window is rounded to a tenth of itself likewise (a 1 s window to 0.1 s),
    // so that scaling does not stretch the wait a 429 asks for; other windows get milliseconds.
    const leftMs =
      this.limit.reset === "window" ? this.limit.windowMs : window.startedAt + this.limit.windowMs - now;
    const unitMs = this.limit.windowMs % 1000 === 0 ? Math.min(1000, this.limit.windowMs / 10) : 1;
    const resetSeconds = (Math.max(1, Math.ceil(leftMs / unitMs)) * unitMs) / 1000;
    return { allowed: false, resetSeconds };
  }
}
