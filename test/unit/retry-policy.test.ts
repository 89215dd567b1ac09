import assert from "node:assert/strict";
import {
  countAttempt,
  DEFAULT_RETRY_POLICY,
  retryDelayMs,
  isRetryableRequest,
  serverRequestedDelayMs,
  shouldRetry,
  type AttemptOutcome,
} from "../../src/api/retry";

/*
 * Edges of the retry policy that the tables in client-policy.test.ts do not reach: exact
 * boundaries, the deadline against the elapsed cap for 429s, and header values as written.
 */

const policy = DEFAULT_RETRY_POLICY;
const tooMany: AttemptOutcome = { kind: "status", status: 429 };
const unavailable: AttemptOutcome = { kind: "status", status: 503 };
const base = { method: "GET", path: "/v1/organizations/o/services/s", attempt: 1, elapsedMs: 0, policy };

describe("retry policy edges", () => {
  it("only a PATCH of exactly .../state is a retryable command", () => {
    assert.equal(isRetryableRequest("patch", "/v1/organizations/o/services/s/state"), true);
    assert.equal(isRetryableRequest("POST", "/v1/organizations/o/services/s/state"), false);
    assert.equal(isRetryableRequest("PUT", "/v1/organizations/o/services/s/state"), false);
    assert.equal(isRetryableRequest("PATCH", "/v1/organizations/o/services/s/state/extra"), false);
    assert.equal(isRetryableRequest("PATCH", "/v1/organizations/o/services/s/stateful"), false);
  });

  it("a retry whose wait would end exactly at the deadline is not started", () => {
    for (const outcome of [tooMany, unavailable]) {
      assert.equal(shouldRetry({ ...base, outcome, nextDelayMs: 1_000, remainingMs: 1_000 }), false);
      assert.equal(shouldRetry({ ...base, outcome, nextDelayMs: 999, remainingMs: 1_000 }), true);
    }
  });

  it("with a deadline, a 429 is retried past the elapsed cap; without one, it stops there", () => {
    const late = { ...base, outcome: tooMany, attempt: 50, elapsedMs: policy.maxElapsedMs, nextDelayMs: 10 };
    assert.equal(shouldRetry({ ...late, remainingMs: 60_000 }), true);
    assert.equal(shouldRetry(late), false);
    assert.equal(
      shouldRetry({ ...late, elapsedMs: policy.maxElapsedMs - 10 }),
      true,
      "up to the cap, whatever the attempt",
    );
  });

  it("the deadline does not lift the caps of other retryable outcomes", () => {
    const withDeadline = { ...base, outcome: unavailable, nextDelayMs: 10, remainingMs: 60_000 };
    assert.equal(shouldRetry({ ...withDeadline, attempt: policy.maxAttempts }), false);
    assert.equal(shouldRetry({ ...withDeadline, elapsedMs: policy.maxElapsedMs }), false);
  });

  it("a retry that ends exactly at the elapsed cap is still made", () => {
    assert.equal(
      shouldRetry({ ...base, outcome: unavailable, elapsedMs: policy.maxElapsedMs - 100, nextDelayMs: 100 }),
      true,
    );
  });
});

describe("server-named waits as written", () => {
  const now = 1e12 - 5_000;
  it("surrounding spaces do not hide a wait", () => {
    assert.equal(serverRequestedDelayMs({ "retry-after": " 3 " }, now), 3_000);
    assert.equal(serverRequestedDelayMs({ "x-ratelimit-reset": " 4\t" }, now), 4_000);
  });

  it("decimal seconds keep up to six decimals", () => {
    assert.equal(serverRequestedDelayMs({ "retry-after": "1.25" }, now), 1_250);
    assert.equal(serverRequestedDelayMs({ "retry-after": "0.000001" }, now), 0.001);
  });

  it("X-RateLimit-Reset of exactly 1e12 is epoch milliseconds, of exactly 1e9 epoch seconds", () => {
    assert.equal(serverRequestedDelayMs({ "x-ratelimit-reset": "1000000000000" }, now), 5_000);
    assert.equal(serverRequestedDelayMs({ "x-ratelimit-reset": "1000000000" }, now), 5_000);
    assert.equal(
      serverRequestedDelayMs({ "x-ratelimit-reset": "999999999" }, now),
      60_000,
      "delta seconds, capped",
    );
  });
});

describe("attempt counts", () => {
  it("429s and other failures are counted apart: after seven 429s a 503 is the first failure", () => {
    const counts = { rateLimited: 0, other: 0 };
    for (let n = 1; n <= 7; n++) assert.equal(countAttempt(counts, tooMany), n);
    const attempt = countAttempt(counts, unavailable);
    assert.equal(attempt, 1);
    assert.equal(shouldRetry({ ...base, outcome: unavailable, attempt, nextDelayMs: 10 }), true);
    // Its backoff is a first retry's: within the base delay, not grown by the 429s.
    assert.ok(retryDelayMs({ retry: attempt, policy, random: () => 0.999 }) <= policy.baseDelayMs);
    let last = attempt;
    while (last < policy.maxAttempts) last = countAttempt(counts, { kind: "timeout" });
    assert.equal(shouldRetry({ ...base, outcome: unavailable, attempt: last, nextDelayMs: 10 }), false);
    assert.equal(countAttempt(counts, tooMany), 8, "and the 429s keep their own count");
  });
});
