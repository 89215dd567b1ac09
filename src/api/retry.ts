/**
 * Retry policy as pure functions (the client calls them; the tests call them directly).
 * Retried: network errors and timeouts, 408, 429, 500, 502, 503, 504, for GET, DELETE and the
 * state PATCH (a command to reach a state is safe to repeat). Never other 4xx.
 */

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** Backoff base: the ceiling of the first retry's delay. */
  baseDelayMs: number;
  /** Ceiling of any computed backoff delay. */
  maxDelayMs: number;
  /** No retry starts once this much time has passed since the first attempt. */
  maxElapsedMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 8,
  baseDelayMs: 1000,
  maxDelayMs: 30_000,
  maxElapsedMs: 180_000,
};

export const RETRYABLE_STATUSES: readonly number[] = [408, 429, 500, 502, 503, 504];

/** GET and DELETE are idempotent; PATCH .../state carries a target state, so repeating it is safe too. */
export function isRetryableRequest(method: string, path: string): boolean {
  const m = method.toUpperCase();
  if (m === "GET" || m === "DELETE") return true;
  return m === "PATCH" && /\/state$/.test(path);
}

export type AttemptOutcome =
  { kind: "status"; status: number } | { kind: "connection" } | { kind: "timeout" };

export function isRetryableOutcome(outcome: AttemptOutcome): boolean {
  return outcome.kind !== "status" || RETRYABLE_STATUSES.includes(outcome.status);
}

/** Whether to try again after `attempt` attempts (1-based) that ended with `outcome`. */
export function shouldRetry(args: {
  method: string;
  path: string;
  outcome: AttemptOutcome;
  attempt: number;
  elapsedMs: number;
  nextDelayMs: number;
  policy: RetryPolicy;
}): boolean {
  const { policy } = args;
  return (
    isRetryableRequest(args.method, args.path) &&
    isRetryableOutcome(args.outcome) &&
    args.attempt < policy.maxAttempts &&
    args.elapsedMs + args.nextDelayMs <= policy.maxElapsedMs
  );
}

/**
 * How long the server asked us to wait, in ms: `Retry-After` (seconds or an HTTP date) and
 * `X-RateLimit-Reset` (seconds until the window resets; an epoch value is also understood).
 * The larger wins; undefined when neither is usable.
 */
export function serverRequestedDelayMs(
  headers: Record<string, string | undefined>,
  nowMs: number,
): number | undefined {
  const candidates: number[] = [];
  const retryAfter = headers["retry-after"]?.trim();
  if (retryAfter) {
    if (/^\d+(\.\d+)?$/.test(retryAfter)) candidates.push(Number(retryAfter) * 1000);
    else {
      const at = Date.parse(retryAfter);
      if (!Number.isNaN(at)) candidates.push(Math.max(0, at - nowMs));
    }
  }
  const reset = headers["x-ratelimit-reset"]?.trim();
  if (reset && /^\d+(\.\d+)?$/.test(reset)) {
    const value = Number(reset);
    // Values this large are epoch seconds, not a countdown.
    candidates.push(value > 1e9 ? Math.max(0, value * 1000 - nowMs) : value * 1000);
  }
  return candidates.length ? Math.max(...candidates) : undefined;
}

/**
 * Delay before retry number `retry` (1 for the first retry). Full jitter on an exponential
 * ceiling, unless the server named a wait: then that wait plus a little jitter, so waiters
 * released together do not hit the server in the same millisecond.
 */
export function retryDelayMs(args: {
  retry: number;
  policy: RetryPolicy;
  serverDelayMs?: number;
  random: () => number;
}): number {
  const { policy, random } = args;
  if (args.serverDelayMs !== undefined) {
    return Math.round(args.serverDelayMs + random() * Math.min(500, policy.baseDelayMs));
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (args.retry - 1));
  return Math.round(random() * ceiling);
}
