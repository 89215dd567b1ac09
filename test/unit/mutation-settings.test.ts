import assert from "node:assert/strict";
import { ConfigurationError } from "../../src/api/errors";
import { BudgetDeadlineError } from "../../src/api/rateBudget";
import { formatRateLimit, parseRateLimit } from "../../src/api/rateLimit";
import { MIN_TIME_SCALE, timeScale } from "../../src/provider/config";

/* Settings read from text: the rate limit and DBCLOUD_TIME_SCALE, at their edges. */

describe("rate limit settings as written", () => {
  it("case, spaces and a missing amount are tolerated", () => {
    assert.deepEqual(parseRateLimit(" 10/10S "), { requests: 10, windowMs: 10_000 });
    assert.deepEqual(parseRateLimit("10 / 10 s"), { requests: 10, windowMs: 10_000 });
    assert.deepEqual(parseRateLimit("OFF"), false);
    assert.deepEqual(parseRateLimit("2/m"), { requests: 2, windowMs: 60_000 });
    assert.deepEqual(parseRateLimit("4/1.5s"), { requests: 4, windowMs: 1_500 });
    assert.deepEqual(parseRateLimit("4/1.25s"), { requests: 4, windowMs: 1_250 });
    assert.deepEqual(parseRateLimit("1/1s"), { requests: 1, windowMs: 1_000 });
  });

  it("zero requests or a zero window is refused, saying why", () => {
    assert.throws(() => parseRateLimit("0/10s"), /at least 1 request per a positive duration/);
    assert.throws(() => parseRateLimit("10/0s"), /at least 1 request per a positive duration/);
    assert.throws(
      () => parseRateLimit("10/10h"),
      /"10\/10h" is not a rate limit: write it as <requests>\/<duration>/,
    );
    assert.throws(() => parseRateLimit("x10/10s"), /not a rate limit/);
    assert.throws(() => parseRateLimit("10/10sx"), /not a rate limit/);
  });

  it("is printed back in whole seconds when it can be, else in milliseconds", () => {
    assert.equal(formatRateLimit(false), "off");
    assert.equal(formatRateLimit({ requests: 10, windowMs: 10_000 }), "10/10s");
    assert.equal(formatRateLimit({ requests: 100, windowMs: 500 }), "100/500ms");
    assert.equal(formatRateLimit({ requests: 5, windowMs: 1_500 }), "5/1500ms");
  });

  it("a budget slot past the deadline says by how many seconds, rounded up", () => {
    const error = new BudgetDeadlineError(12_001, 10_000);
    assert.equal(
      error.message,
      "the client's rate budget has no slot before the deadline (next slot in 3 s past it)",
    );
    assert.equal(error.name, "BudgetDeadlineError");
    assert.equal(error.nextSlotAt, 12_001);
  });
});

describe("DBCLOUD_TIME_SCALE", () => {
  const previous = process.env.DBCLOUD_TIME_SCALE;
  afterEach(() => {
    if (previous === undefined) delete process.env.DBCLOUD_TIME_SCALE;
    else process.env.DBCLOUD_TIME_SCALE = previous;
  });
  const scaleOf = (raw: string | undefined) => {
    if (raw === undefined) delete process.env.DBCLOUD_TIME_SCALE;
    else process.env.DBCLOUD_TIME_SCALE = raw;
    return timeScale();
  };

  it("unset or empty is 1; any number in [MIN_TIME_SCALE, 1] is taken as is", () => {
    assert.equal(scaleOf(undefined), 1);
    assert.equal(scaleOf(""), 1);
    assert.equal(scaleOf("0.5"), 0.5);
    assert.equal(scaleOf("1"), 1);
    assert.equal(scaleOf(String(MIN_TIME_SCALE)), MIN_TIME_SCALE);
    assert.equal(MIN_TIME_SCALE, 0.001);
  });

  for (const raw of ["0.0009", "0", "-1", "1.01", "abc", "Infinity", "NaN"]) {
    it(`${JSON.stringify(raw)} is refused, naming the range`, () => {
      assert.throws(
        () => scaleOf(raw),
        (error: unknown) =>
          error instanceof ConfigurationError &&
          error.message === `DBCLOUD_TIME_SCALE must be a number from 0.001 to 1, got ${JSON.stringify(raw)}`,
      );
    });
  }
});
