import assert from "node:assert/strict";
import { MAX_TIMER_MS, systemClock } from "../../src/api/clock";

/* The system clock's sleep hands Node a delay it can hold: never negative, NaN or past 32 bits. */

describe("system clock", () => {
  const realSetTimeout = globalThis.setTimeout;
  afterEach(() => {
    globalThis.setTimeout = realSetTimeout;
  });

  /** The delay that sleep(ms) hands to setTimeout (the timer fires at once here). */
  async function delayGivenToNode(ms: number): Promise<number> {
    let given: number | undefined;
    globalThis.setTimeout = ((callback: () => void, delay: number) => {
      given = delay;
      return realSetTimeout(callback, 0);
    }) as typeof setTimeout;
    await systemClock.sleep(ms);
    globalThis.setTimeout = realSetTimeout;
    return given!;
  }

  it("a wait longer than Node's 32-bit timers is held at the longest one, not fired at once", async () => {
    assert.equal(MAX_TIMER_MS, 2_147_483_647);
    assert.equal(await delayGivenToNode(1e12), 2_147_483_647);
    assert.equal(await delayGivenToNode(2_147_483_647), 2_147_483_647);
  });

  it("negative, NaN and infinite waits become no wait; others are kept", async () => {
    assert.equal(await delayGivenToNode(-5), 0);
    assert.equal(await delayGivenToNode(Number.NaN), 0);
    assert.equal(await delayGivenToNode(Number.POSITIVE_INFINITY), 0);
    assert.equal(await delayGivenToNode(25), 25);
  });

  it("now is monotonic: a wall clock stepped back ten minutes moves it not at all; wallNow is the wall clock", () => {
    const realNow = Date.now;
    const monotonic = () => performance.timeOrigin + performance.now();
    const before = systemClock.now();
    try {
      Date.now = () => realNow() - 600_000;
      const during = systemClock.now();
      const after = monotonic();
      assert.ok(during >= before, `now went back from ${before} to ${during}`);
      assert.ok(during <= after, "nor jumped: it reads no later than the monotonic clock after it");
      const wallBefore = Date.now();
      const wall = systemClock.wallNow!();
      assert.ok(wall >= wallBefore && wall <= Date.now(), "wallNow reads the (stepped) wall clock");
    } finally {
      Date.now = realNow;
    }
  });
});
