/**
 * How a call retries. Retried: network errors and timeouts, 408, 429, 500, 502, 503, 504, for GET,
 * DELETE and the state PATCH (a command to reach a state is safe to repeat). Never other 4xx.
 */
export interface RetryPolicy {
  /** Attempts in all, the first included; 429s are not counted (see `countAttempt`). */
  maxAttempts: number;
  /** The ceiling of the first retry's delay. */
  baseDelayMs: number;
  /** Ceiling of any computed backoff delay. */
  maxDelayMs: number;
  /** Without a caller's deadline, no retry starts once this much time has passed since the first attempt. */
  maxElapsedMs: number;
  /** Ceiling of a wait the server asks for (Retry-After, X-RateLimit-Reset). */
  maxServerDelayMs: number;
}

/** 8 attempts, backoff from 1 s up to 30 s, 180 s in all, server waits capped at 60 s. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 8,
  baseDelayMs: 1000,
  maxDelayMs: 30_000,
  maxElapsedMs: 180_000,
  maxServerDelayMs: 60_000,
});

/** No retry delay is shorter than this, whatever the scaling: no setting makes a tight loop. */
export const MIN_RETRY_DELAY_MS = 10;

/** The largest floor: about one slow round trip of the real API (100 to 300 ms). */
export const MAX_ATTEMPT_FLOOR_MS = 250;

/**
 * The least time before the deadline with which an attempt still starts: a tenth of what the call's
 * first attempt has (its total limit, or the time to the deadline if shorter), at most
 * `MAX_ATTEMPT_FLOOR_MS`. With less, the answer can hardly arrive in time, yet the request counts
 * against the key's allowance like any other. Deadlines scaled down for tests scale it down too.
 */
export function attemptFloorMs(attemptLimitMs: number, untilDeadlineMs: number): number {
  return Math.max(0, Math.min(MAX_ATTEMPT_FLOOR_MS, attemptLimitMs / 10, untilDeadlineMs / 10));
}

/** Why no attempt may start `leftMs` before the deadline, `floorMs` the call's floor; undefined if one may. */
export function tooLittleTime(leftMs: number, floorMs: number, when = ""): string | undefined {
  if (leftMs <= 0) return "the deadline passed before the request was sent";
  if (leftMs >= floorMs) return undefined;
  const times = `${Math.floor(leftMs)} ms before the deadline; an attempt needs ${Math.ceil(floorMs)} ms`;
  return `no attempt made, too little time left${when} (${times})`;
}

const RETRYABLE_STATUSES: readonly number[] = [408, 429, 500, 502, 503, 504];

/** GET and DELETE are idempotent; PATCH .../state carries a target state, so repeating it is safe. */
export function isRetryableRequest(method: string, path: string): boolean {
  const m = method.toUpperCase();
  return m === "GET" || m === "DELETE" || (m === "PATCH" && /\/state$/.test(path));
}

export type AttemptOutcome =
  { kind: "status"; status: number } | { kind: "connection" } | { kind: "timeout" };

export function describeOutcome(outcome: AttemptOutcome): string {
  if (outcome.kind === "status")
    return outcome.status === 429 ? "429 rate limited" : `status ${outcome.status}`;
  return outcome.kind === "timeout" ? "timed out" : "connection failed";
}

/** A call's attempts so far in two counts: a 429 is "wait your turn" and uses up no other attempt. */
export type AttemptCounts = Record<"rateLimited" | "other", number>;

/** Counts `outcome` in; returns its number in its own count. */
export function countAttempt(counts: AttemptCounts, outcome: AttemptOutcome): number {
  return isRateLimited(outcome) ? ++counts.rateLimited : ++counts.other;
}

export function isRateLimited(outcome: AttemptOutcome): boolean {
  return outcome.kind === "status" && outcome.status === 429;
}

/**
 * Whether to try again after `outcome`, never past the deadline: a 429 while the deadline leaves room
 * (without one, within `maxElapsedMs`), others within both bounds.
 */
export function shouldRetry(args: {
  method: string;
  path: string;
  outcome: AttemptOutcome;
  attempt: number;
  elapsedMs: number;
  nextDelayMs: number;
  policy: RetryPolicy;
  remainingMs?: number;
}): boolean {
  const { policy, outcome } = args;
  const retryableOutcome = outcome.kind !== "status" || RETRYABLE_STATUSES.includes(outcome.status);
  if (!isRetryableRequest(args.method, args.path) || !retryableOutcome) return false;
  if (args.nextDelayMs >= (args.remainingMs ?? Infinity)) return false;
  const rateLimited = isRateLimited(outcome);
  if (rateLimited && args.remainingMs !== undefined) return true;
  const withinElapsed = args.elapsedMs + args.nextDelayMs <= policy.maxElapsedMs;
  return withinElapsed && (rateLimited || args.attempt < policy.maxAttempts);
}

/** A header value of whole or decimal seconds, or milliseconds since the epoch: a plain number. */
const NUMBER = /^\d{1,16}(\.\d{1,6})?$/;

/**
 * How long the server asked us to wait, in ms, at most `maxDelayMs`: the larger of `Retry-After` (seconds or
 * an HTTP date) and `X-RateLimit-Reset` (delta s below 1e9, epoch s below 1e12, else epoch ms), if usable.
 */
export function serverRequestedDelayMs(
  headers: Record<string, string | undefined>,
  /** The wall-clock time now (epoch ms): dates and epoch resets are wall-clock times. */
  nowMs: number,
  maxDelayMs = DEFAULT_RETRY_POLICY.maxServerDelayMs,
): number | undefined {
  const candidates: number[] = [];
  const retryAfter = headers["retry-after"]?.trim();
  // Seconds, else an HTTP date: NaN when it is neither, dropped below.
  if (retryAfter)
    candidates.push(NUMBER.test(retryAfter) ? Number(retryAfter) * 1000 : Date.parse(retryAfter) - nowMs);
  const reset = headers["x-ratelimit-reset"]?.trim();
  if (reset && NUMBER.test(reset)) {
    const value = Number(reset);
    candidates.push(value >= 1e12 ? value - nowMs : value >= 1e9 ? value * 1000 - nowMs : value * 1000);
  }
  // Every other candidate is finite: at most 16 digits of seconds.
  const usable = candidates.filter((ms) => !Number.isNaN(ms));
  return usable.length ? Math.min(maxDelayMs, Math.max(0, ...usable)) : undefined;
}

/**
 * Delay before retry number `retry` (1 for the first; 429s counted apart), at least `MIN_RETRY_DELAY_MS`:
 * full jitter on an exponential ceiling, or the server's wait plus a little, so released waiters spread out.
 */
export function retryDelayMs(args: {
  retry: number;
  policy: RetryPolicy;
  serverDelayMs?: number;
  random: () => number;
}): number {
  const { policy, random } = args;
  if (args.serverDelayMs !== undefined) {
    const server = Math.min(args.serverDelayMs, policy.maxServerDelayMs);
    return Math.max(MIN_RETRY_DELAY_MS, Math.round(server + random() * Math.min(500, policy.baseDelayMs)));
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(args.retry - 1, 30));
  return Math.max(MIN_RETRY_DELAY_MS, Math.round(random() * ceiling));
}
