import assert from "node:assert/strict";
import {
  attemptFloorMs,
  countAttempt,
  DEFAULT_RETRY_POLICY,
  MIN_RETRY_DELAY_MS,
  retryDelayMs,
  isRetryableRequest,
  serverRequestedDelayMs,
  shouldRetry,
  tooLittleTime,
  type AttemptOutcome,
} from "../../src/api/retry";

/*
 * The retry policy's pure functions, table by table, then edge by edge: which outcome of which
 * request is retried, the delays, the waits a server names, and the two attempt counts.
 */

const policy = DEFAULT_RETRY_POLICY;
const tooMany: AttemptOutcome = { kind: "status", status: 429 };
const unavailable: AttemptOutcome = { kind: "status", status: 503 };
const base = { method: "GET", path: "/v1/organizations/o/services/s", attempt: 1, elapsedMs: 0, policy };

describe("retry decision", () => {
  const outcomes: [AttemptOutcome, boolean][] = [
    ...[400, 401, 403, 404, 409, 422, 424, 501].map((status): [AttemptOutcome, boolean] => [
      { kind: "status", status },
      false,
    ]),
    ...[408, 429, 500, 502, 503, 504].map((status): [AttemptOutcome, boolean] => [
      { kind: "status", status },
      true,
    ]),
    [{ kind: "connection" }, true],
    [{ kind: "timeout" }, true],
  ];
  const requests: [string, string, boolean][] = [
    ["GET", "/v1/organizations/o/services/s", true],
    ["DELETE", "/v1/organizations/o/services/s/pipesReversePrivateEndpoints/e", true],
    ["PATCH", "/v1/organizations/o/services/s/state", true],
    ["PATCH", "/v1/organizations/o/services/s", false],
    ["POST", "/v1/organizations/o/services", false],
  ];
  for (const [method, path, retryableRequest] of requests) {
    for (const [outcome, retryableOutcome] of outcomes) {
      const expected = retryableRequest && retryableOutcome;
      const name = outcome.kind === "status" ? String(outcome.status) : outcome.kind;
      it(`${method} ${path.split("/").pop()} after ${name}: ${expected ? "retry" : "no retry"}`, () => {
        assert.equal(shouldRetry({ ...base, method, path, outcome, nextDelayMs: 100 }), expected);
      });
    }
  }

  it("stops at the attempt cap and when the next wait would pass the elapsed cap", () => {
    const failed = { ...base, outcome: unavailable };
    assert.equal(shouldRetry({ ...failed, attempt: policy.maxAttempts - 1, nextDelayMs: 0 }), true);
    assert.equal(shouldRetry({ ...failed, attempt: policy.maxAttempts, nextDelayMs: 0 }), false);
    assert.equal(shouldRetry({ ...failed, elapsedMs: policy.maxElapsedMs - 10, nextDelayMs: 20 }), false);
  });
});

describe("retry delay", () => {
  it("is full jitter under an exponential ceiling capped at maxDelayMs", () => {
    for (let retry = 1; retry <= 10; retry++) {
      const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
      assert.equal(
        retryDelayMs({ retry, policy, random: () => 0 }),
        MIN_RETRY_DELAY_MS,
        "never below the floor",
      );
      assert.equal(retryDelayMs({ retry, policy, random: () => 0.999999 }), Math.round(0.999999 * ceiling));
    }
  });

  it("keeps a floor under every delay, however small the scaled policy", () => {
    const tiny = { ...policy, baseDelayMs: 0.001, maxDelayMs: 0.03 };
    for (const random of [() => 0, () => 0.5, () => 0.999]) {
      assert.equal(retryDelayMs({ retry: 3, policy: tiny, random }), MIN_RETRY_DELAY_MS);
      assert.equal(retryDelayMs({ retry: 3, policy: tiny, serverDelayMs: 0, random }), MIN_RETRY_DELAY_MS);
    }
  });

  it("caps a server-named wait at maxServerDelayMs, and a huge retry number does not overflow", () => {
    assert.equal(
      retryDelayMs({ retry: 1, policy, serverDelayMs: 10 ** 12, random: () => 0 }),
      policy.maxServerDelayMs,
    );
    assert.equal(
      retryDelayMs({ retry: 5000, policy, random: () => 0.999999 }),
      Math.round(0.999999 * policy.maxDelayMs),
    );
  });

  it("honours a server-named wait, plus at most half a second of jitter", () => {
    assert.equal(retryDelayMs({ retry: 1, policy, serverDelayMs: 7000, random: () => 0 }), 7000);
    assert.equal(retryDelayMs({ retry: 5, policy, serverDelayMs: 7000, random: () => 0.999999 }), 7500);
  });
});

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

describe("server-named waits", () => {
  const noon = Date.parse("2026-11-22T12:00:00Z");
  const table: [Record<string, string>, number | undefined][] = [
    [{ "retry-after": "3" }, 3000],
    [{ "retry-after": "1.5" }, 1500],
    [{ "retry-after": "Sun, 22 Nov 2026 12:00:10 GMT" }, 10_000],
    [{ "retry-after": "Sun, 22 Nov 2026 11:59:00 GMT" }, 0],
    [{ "x-ratelimit-reset": "4" }, 4000],
    [{ "x-ratelimit-reset": String(noon / 1000 + 6) }, 6000],
    [{ "retry-after": "2", "x-ratelimit-reset": "5" }, 5000],
    [{ "x-ratelimit-reset": String(noon + 7000) }, 7000], // epoch milliseconds
    [{ "x-ratelimit-reset": String(noon / 1000 - 30) }, 0], // a reset already past
    [{ "retry-after": "86400" }, 60_000], // a day: capped at maxServerDelayMs
    [{ "x-ratelimit-reset": String(noon / 1000 + 10 ** 6) }, 60_000], // far-future epoch: capped
    [{ "retry-after": "99999999999999999999999" }, undefined], // not a sane number at all
    [{ "retry-after": "Sat, 01 Jan 2300 00:00:00 GMT" }, 60_000], // a date centuries away: capped
    [{ "retry-after": "soon", "x-ratelimit-reset": "-1" }, undefined],
    [{ "retry-after": "1e3" }, undefined],
    [{}, undefined],
  ];
  for (const [headers, expected] of table) {
    it(`${JSON.stringify(headers)} → ${expected}`, () =>
      assert.equal(serverRequestedDelayMs(headers, noon), expected));
  }

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

describe("the attempt floor", () => {
  it("is a tenth of the first attempt's time, at most 250 ms, never negative", () => {
    const table: [attemptLimitMs: number, untilDeadlineMs: number, floorMs: number][] = [
      [60_000, 1_200_000, 250],
      [60_000, 1_000, 100],
      [600, 1_200_000, 60],
      [60_000, Infinity, 250],
      [60_000, 0, 0],
      [60_000, -5, 0],
    ];
    for (const [attemptLimitMs, untilDeadlineMs, floorMs] of table)
      assert.equal(
        attemptFloorMs(attemptLimitMs, untilDeadlineMs),
        floorMs,
        `${attemptLimitMs}, ${untilDeadlineMs}`,
      );
  });

  it("stops an attempt under the floor or past the deadline, saying which, and lets one at the floor go", () => {
    assert.equal(tooLittleTime(100, 100), undefined);
    assert.equal(tooLittleTime(Infinity, 250), undefined);
    assert.equal(
      tooLittleTime(99.5, 100),
      "no attempt made, too little time left (99 ms before the deadline; an attempt needs 100 ms)",
    );
    assert.equal(tooLittleTime(0, 0), "the deadline passed before the request was sent");
    assert.equal(tooLittleTime(-3, 100), "the deadline passed before the request was sent");
  });
});
