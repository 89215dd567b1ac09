import assert from "node:assert/strict";
import { ADAPTIVE_RATE, defaultMarginMs, RateBudget } from "../../src/api/rateBudget";
import { virtualClock as jumpingClock } from "../helpers/virtualClock";

// The rate budget adapting to 429s: the cut below the key's share, which window a reset names,
// the climb back to the full limit and the pacing at the lowered rate.

describe("rate budget: adapts to 429s (virtual clock)", () => {
  const limit = { requests: 10, windowMs: 1_000 };

  /** A budget paced one grant every 100 ms from 0 when a 429 came at 300 (4 in the key's window, 3 taken). */
  async function throttled() {
    const virtual = jumpingClock();
    const budget = new RateBudget(limit, virtual.clock, 0);
    for (let i = 0; i < 4; i++) await budget.take();
    assert.equal(virtual.now(), 300, "one every window / limit");
    budget.blockUntil(1_000); // the key's window is full until 1000
    return { budget, ...virtual };
  }

  it("a 429 cuts the rate below the share the key gave this budget, once per window", async () => {
    const { budget } = await throttled();
    assert.equal(budget.rate(), 3 * ADAPTIVE_RATE.cut, "3 of its 4 grants went through: its share is 3");
    budget.blockUntil(1_000); // the same full window seen by another waiter: no second cut
    assert.equal(budget.rate(), 3 * ADAPTIVE_RATE.cut);
    assert.equal(budget.nextGrantAt(), 1_000, "paused until the reset");
  });

  it("a second 429 later in the same window is not a new measure; one a window later is", async () => {
    const { budget, advance } = await throttled(); // the first at 300
    advance(500);
    budget.blockUntil(1_000);
    assert.ok(budget.rate(800) > 3 * ADAPTIVE_RATE.cut, "at 800, still climbing from the first measure");
    advance(500);
    budget.blockUntil(2_000);
    assert.equal(budget.rate(1_300), ADAPTIVE_RATE.minRequests, "at 1300, a new one: nothing taken since");
  });

  it("counts the grants of the window the reset names, not older ones; a reset out of range names none", async () => {
    const virtual = jumpingClock();
    const budget = new RateBudget(limit, virtual.clock, 0);
    for (let i = 0; i < 9; i++) await budget.take(); // 0 to 800, a window before
    virtual.advance(700);
    await budget.take(); // 1500
    await budget.take(); // 1600, answered 429: the window from 1400 is full until 2400
    budget.blockUntil(2_400);
    assert.equal(budget.rate(), 1 * ADAPTIVE_RATE.cut, "only 1500 went through in that window");
    const { climb, cut, recoverWindows } = ADAPTIVE_RATE;
    const later = budget.rate(1_600 + recoverWindows * limit.windowMs);
    assert.ok(Math.abs(later - (cut + climb * recoverWindows)) < 1e-9, `${later}: climbing from the cut`);

    for (const reset of [1_600 + 5 * limit.windowMs, 100]) {
      const other = new RateBudget(limit, jumpingClock().clock, 0);
      for (let i = 0; i < 4; i++) await other.take(); // 0 to 300
      other.blockUntil(reset); // a reset further off than a window, or already past: the window ends now
      assert.equal(other.rate(300), 3 * ADAPTIVE_RATE.cut, `reset at ${reset}`);
    }
  });

  it("a reset already past names no window: the grants of the window ending now count", async () => {
    const { clock, advance } = jumpingClock();
    const budget = new RateBudget(limit, clock, 0);
    for (let i = 0; i < 4; i++) await budget.take(); // 0 to 300
    advance(950); // the 429 for the grant at 300 is read at 1250
    budget.blockUntil(500); // a reset already past: the window ends now, and began at 150 at the earliest
    assert.equal(budget.rate(), 1 * ADAPTIVE_RATE.cut, "200 and 300 in it, less the refused one");
  });

  it("a reset exactly a window off names the window that began within the rounding", async () => {
    // The server rounds its reset up (to whole seconds for the 10 s window): a window that began
    // less than a second before the 429 resets exactly 10 s after it. The emulator answers so too.
    const { clock, advance } = jumpingClock();
    const budget = new RateBudget({ requests: 10, windowMs: 10_000 }, clock, 0);
    advance(3_000);
    for (let i = 0; i < 3; i++) await budget.take(); // 3000, 4000, 5000: the window before
    advance(7_000);
    await budget.take(); // 12000: other processes filled the key's window that began at 11500
    budget.blockUntil(12_000 + 10_000); // its 429 says "10" (9.5 s, rounded up)
    assert.equal(
      budget.rate(),
      ADAPTIVE_RATE.minRequests,
      "no grant of its own in that window but the refused one; not those of the window before",
    );
    // Such a reset says nothing of when the window began: the rate comes back to what the key
    // took over the whole window (and its rounding) before the 429: 3000, 4000 and 5000.
    const back = budget.rate(12_000 + ADAPTIVE_RATE.recoverWindows * 10_000);
    assert.ok(back >= 3 && back < 4, `${back}: back at 3`);
  });

  it("counts the grants of a window whose reset was rounded up to whole seconds", async () => {
    const { clock } = jumpingClock();
    const budget = new RateBudget({ requests: 10, windowMs: 10_000 }, clock, 0);
    for (let i = 0; i < 4; i++) await budget.take(); // at 0, 1000, 2000 and 3000
    // The grant at 0 reached the server at 0.2 s and began its window, which ends at 10.2 s: at
    // 3.0 s the server says "8" (7.2 s, rounded up), a reset at 11 s.
    budget.blockUntil(11_000);
    assert.equal(budget.rate(), 3 * ADAPTIVE_RATE.cut, "the grant at 0 is in the window");
  });

  it("climbs a fixed step per window, then faster and faster, back to the full limit", async () => {
    const { budget, advance } = await throttled();
    const rates: number[] = [];
    for (let window = 0; window <= 30; window++) {
      rates.push(budget.rate(300 + window * limit.windowMs));
    }
    for (let i = 1; i < rates.length; i++) assert.ok(rates[i] >= rates[i - 1], `never lower, window ${i}`);
    for (let i = 1; i <= ADAPTIVE_RATE.steadyWindows; i++) {
      assert.ok(Math.abs(rates[i] - rates[i - 1] - ADAPTIVE_RATE.climb) < 1e-9, `a fixed step, window ${i}`);
    }
    const later = 2 * ADAPTIVE_RATE.steadyWindows;
    assert.ok(
      rates[later + 1] - rates[later] > 2 * ADAPTIVE_RATE.climb,
      "faster once no 429 came for a while",
    );
    assert.equal(rates[rates.length - 1], limit.requests, "back at the limit");
    advance(30 * limit.windowMs);
    budget.blockUntil(31_300); // a 429 long after: measured anew, from this window's grants
    assert.equal(budget.rate(), ADAPTIVE_RATE.minRequests * 1, "no grant in that window: the lowest rate");
  });

  it("paces grants at the lowered rate", async () => {
    const { budget, now } = await throttled();
    const spacing = limit.windowMs / (3 * ADAPTIVE_RATE.cut);
    await budget.take();
    assert.equal(
      now(),
      Math.max(1_000, 300 + spacing),
      "the first after the pause, a spacing after the last",
    );
    const first = now();
    const rateThen = budget.rate(first); // climbing already: the spacing follows the curve
    await budget.take();
    assert.ok(
      Math.abs(now() - first - limit.windowMs / rateThen) < 1e-6,
      "the next a spacing at that rate later",
    );
    assert.ok(rateThen < limit.requests / 2);
  });

  it("never goes below the lowest rate, whatever the 429s", () => {
    const { clock, advance } = jumpingClock();
    const budget = new RateBudget(limit, clock, 0);
    for (let i = 0; i < 20; i++) {
      budget.blockUntil(clock.now());
      advance(limit.windowMs);
    }
    assert.ok(budget.rate() >= ADAPTIVE_RATE.minRequests);
  });

  it("adds a margin of 100 ms to the real 10 s window and 1 % (at least 20 ms) to scaled ones", () => {
    assert.equal(defaultMarginMs({ requests: 10, windowMs: 10_000 }), 100);
    assert.equal(defaultMarginMs({ requests: 10, windowMs: 60_000 }), 100);
    assert.equal(defaultMarginMs({ requests: 10, windowMs: 5_000 }), 50);
    assert.equal(defaultMarginMs({ requests: 10, windowMs: 500 }), 20);
  });
});
