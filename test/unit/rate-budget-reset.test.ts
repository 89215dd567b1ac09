import assert from "node:assert/strict";
import { ADAPTIVE_RATE, RateBudget } from "../../src/api/rateBudget";
import { steppedClock } from "../helpers/steppedClock";

/*
 * Where the grants go when a 429's pause ends (stepped clock): after the first 429 of an episode,
 * when all a budget has waiting fits in its share of the fresh window, its commands and reads go at
 * the reset; when more waits, after a 429 while a lowered rate is in force, and for polls, the
 * pacing at the lowered rate starts at the reset.
 */

const limit = { requests: 10, windowMs: 1_000 };
/** A poll whose service has waited a window and was last seen as long ago (so it is due). */
const hint = { waitedMs: () => 1_000, unseenMs: () => 1_000 };

/**
 * A budget that sent at 0, 100, 200 and 300 when the last of these was refused with a 429 whose
 * reset is 1000 (its share: 3 grants taken, cut to 2.1), with `waiting` requests queued then, and
 * the refused one asking again at once.
 */
async function throttled(waiting: number) {
  const stepped = steppedClock();
  const budget = new RateBudget(limit, stepped.clock, 0);
  const timed = (taking: Promise<unknown>) => {
    const result: { at?: number } = {};
    void taking.then(() => (result.at = stepped.now()));
    return result;
  };
  const sent = Array.from({ length: 4 }, () => timed(budget.take()));
  await stepped.runUntil(() => sent[3].at !== undefined);
  const queued = Array.from({ length: waiting }, () => timed(budget.take()));
  budget.blockUntil(1_000);
  const refused = timed(budget.take());
  const rateThen = budget.rate(1_000); // climbing already: the spacing follows the curve
  const share = Math.floor(3 * ADAPTIVE_RATE.cut);
  return { budget, stepped, timed, queued, refused, rateThen, share };
}

const close = (actual: number | undefined, expected: number, message: string) =>
  assert.ok(Math.abs(actual! - expected) < 1e-6, `${message}: ${actual}, not ${expected}`);

describe("rate budget: after a 429's pause (stepped clock)", () => {
  it("when all it has waiting fits in its share of the fresh window, that goes at the reset, then the pacing resumes", async () => {
    const { budget, stepped, timed, queued, refused, rateThen, share } = await throttled(1);
    assert.equal(share, 2, "the refused request and the one queued");
    await stepped.runUntil(() => refused.at !== undefined && queued[0].at !== undefined);
    assert.equal(refused.at, 1_000, "at the reset, where the server's window is fresh");
    assert.equal(queued[0].at, 1_000, "with the refused one");
    const next = timed(budget.take());
    await stepped.runUntil(() => next.at !== undefined);
    close(
      next.at,
      1_000 + (share * limit.windowMs) / rateThen,
      "the next as if the share had been paced from the reset",
    );
  });

  it("when more waits than its share, the pacing starts at the reset", async () => {
    const { budget, stepped, queued, refused, rateThen } = await throttled(2);
    await stepped.runUntil(() => queued.every((one) => one.at !== undefined) && refused.at !== undefined);
    const times = [refused.at!, ...queued.map((one) => one.at!)].sort((a, b) => a - b);
    assert.equal(times[0], 1_000, "the first at the reset");
    close(times[1], 1_000 + limit.windowMs / rateThen, "the next a spacing at the new rate later");
    close(times[2], times[1] + limit.windowMs / budget.rate(times[1]), "and the last another spacing later");
  });

  it("after a 429 while its lowered rate is in force, the pacing starts at the reset, even when all waiting fits", async () => {
    const { budget, stepped, timed, refused } = await throttled(0);
    await stepped.runUntil(() => refused.at !== undefined);
    void stepped.clock.sleep(7_300 - stepped.now());
    await stepped.runUntil(() => stepped.now() >= 7_300); // seven windows climbing, still below the limit
    assert.ok(budget.rate() < limit.requests);
    for (let i = 0; i < 6; i++) {
      const one = timed(budget.take());
      await stepped.runUntil(() => one.at !== undefined);
    }
    const queued = timed(budget.take());
    const reset = stepped.now() + 200; // the key's window, which holds those 6, is full until then
    budget.blockUntil(reset);
    const again = timed(budget.take());
    const share = budget.rate(reset);
    assert.ok(share >= 2, `${share}: both would fit in its share`);
    await stepped.runUntil(() => queued.at !== undefined && again.at !== undefined);
    const times = [queued.at!, again.at!].sort((a, b) => a - b);
    assert.equal(times[0], reset, "the first at the reset");
    close(times[1], reset + limit.windowMs / share, "the next a spacing at the new rate later");
  });

  it("polls go a spacing apart after the reset, even when they fit in the share", async () => {
    const { budget, stepped, timed, refused, rateThen } = await throttled(0);
    await stepped.runUntil(() => refused.at !== undefined);
    assert.equal(refused.at, 1_000);
    const poll = timed(budget.take(undefined, hint));
    await stepped.runUntil(() => poll.at !== undefined);
    close(poll.at, 1_000 + limit.windowMs / rateThen, "a spacing after the refused one");
  });
});
