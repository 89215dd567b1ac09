import assert from "node:assert/strict";
import type { Clock } from "../../src/api/clock";
import { emptyState, MemoryLedger } from "../../src/api/ledger";
import { ADAPTIVE_RATE, BudgetDeadlineError, defaultMarginMs, RateBudget } from "../../src/api/rateBudget";
import { steppedClock } from "../helpers/steppedClock";
import { virtualClock as jumpingClock } from "../helpers/virtualClock";

/** A poll's hint: its service has waited `waitedMs`, and was last seen `unseenMs` ago (by default when its wait began). */
const poll = (waitedMs: number, unseenMs = waitedMs) => ({
  waitedMs: () => waitedMs,
  unseenMs: () => unseenMs,
});

/** A virtual clock whose sleepers wake in time order when `run` advances it. */
function virtualClock() {
  let now = 0;
  const sleepers: { until: number; wake: () => void }[] = [];
  const clock: Clock = {
    now: () => now,
    sleep: (ms) => new Promise<void>((wake) => sleepers.push({ until: now + Math.max(0, ms), wake })),
  };
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  async function run(until: number) {
    await settle();
    for (;;) {
      sleepers.sort((a, b) => a.until - b.until);
      if (!sleepers.length || sleepers[0].until > until) break;
      const next = sleepers.shift()!;
      now = Math.max(now, next.until);
      next.wake();
      await settle();
    }
    now = Math.max(now, until);
  }
  return { clock, run };
}

describe("rate budget: polls after commands, longest waits first (virtual clock)", () => {
  it("a poll waits behind reservations, even ones made after it", async () => {
    const { clock, run } = virtualClock();
    const budget = new RateBudget({ requests: 1, windowMs: 1_000 }, clock, 0);
    const order: string[] = [];
    await budget.take(); // t=0
    const polled = budget.take(undefined, poll(1)).then(() => order.push(`poll@${clock.now()}`));
    const command = budget.take().then(() => order.push(`command@${clock.now()}`));
    await run(5_000);
    await Promise.all([polled, command]);
    assert.deepEqual(order, ["command@1000", "poll@2000"]);
  });

  it("serves the waiting poll whose service has waited longest, not the one that asked first", async () => {
    const { clock, run } = virtualClock();
    const budget = new RateBudget({ requests: 1, windowMs: 1_000 }, clock, 0);
    await budget.take();
    const order: string[] = [];
    for (const [name, waitedMs] of [
      ["began last", 10_000],
      ["began first", 60_000],
      ["began between", 30_000],
    ] as const) {
      void budget.take(undefined, poll(waitedMs)).then(() => order.push(name));
    }
    await run(10_000);
    assert.deepEqual(order, ["began first", "began between", "began last"]);
  });

  it("a service seen within the last fifth of its wait yields to one that waited less but was not", async () => {
    const { clock, run } = virtualClock();
    const budget = new RateBudget({ requests: 1, windowMs: 1_000 }, clock, 0);
    await budget.take();
    const order: string[] = [];
    const polls = [
      ["long, seen 10 s ago", poll(100_000, 10_000)],
      ["shorter, never seen since its command", poll(50_000)],
      ["long, seen 15 s ago", poll(90_000, 15_000)],
    ] as const;
    for (const [name, hint] of polls) void budget.take(undefined, hint).then(() => order.push(name));
    await run(10_000);
    assert.deepEqual(order, [
      "shorter, never seen since its command",
      "long, seen 10 s ago", // both seen recently: the longer wait first
      "long, seen 15 s ago",
    ]);
  });

  it("a poll still waiting when its deadline comes fails then, with nothing sent", async () => {
    const { clock, run } = virtualClock();
    const budget = new RateBudget({ requests: 1, windowMs: 10_000 }, clock, 0);
    await budget.take();
    const outcome = budget.take(5_000 + 10_000, poll(0)).catch((e: unknown) => e);
    void budget.take(); // a command takes the slot at 10 s
    await run(30_000);
    const error = await outcome;
    assert.ok(error instanceof BudgetDeadlineError, String(error));
  });

  it("a poll whose first free slot lies past its deadline fails at once", async () => {
    const { clock } = virtualClock();
    const budget = new RateBudget({ requests: 1, windowMs: 10_000 }, clock, 0);
    await budget.take();
    await assert.rejects(budget.take(5_000, poll(1)), BudgetDeadlineError);
  });
});

describe("rate budget: a grant counts from its answer (virtual clock)", () => {
  it("a slow answer pushes the slots reserved after it, so a server window opened late is respected", async () => {
    const { clock, run } = virtualClock();
    const budget = new RateBudget({ requests: 1, windowMs: 1_000 }, clock, 0);
    const first = await budget.take(); // granted at 0, its request still on its way
    let secondAt: number | undefined;
    const second = budget.take().then(() => (secondAt = clock.now())); // reserved for 1000
    await run(400);
    first.answered(); // the server saw it at 400 at the latest: its window may close only at 1400
    await run(5_000);
    await second;
    assert.equal(secondAt, 1_400);
  });
});

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
    const later = ADAPTIVE_RATE.steadyWindows + 2;
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

describe("rate budget: edges (jumping clock)", () => {
  it("a slot past the deadline throws and reserves nothing; a slot exactly at it is granted", async () => {
    const { clock } = jumpingClock();
    const budget = new RateBudget({ requests: 1, windowMs: 1_000 }, clock, 0);
    await budget.take();
    await assert.rejects(budget.take(999), (error: unknown) => {
      assert.ok(error instanceof BudgetDeadlineError);
      assert.equal(error.nextSlotAt, 1_000);
      return true;
    });
    assert.equal(budget.nextGrantAt(), 1_000, "the refused call took no slot");
    assert.equal((await budget.take(1_000)).waitedMs, 1_000);
    assert.equal(budget.nextGrantAt(), 2_000, "the slot taken at the deadline counts against the window");
  });

  it("the default margin is 100 ms past the real 10 s window, 1 % (at least 20 ms) of a shorter one", async () => {
    const real = new RateBudget({ requests: 1, windowMs: 10_000 }, jumpingClock().clock);
    await real.take();
    assert.equal(real.nextGrantAt(), 10_100);
    const scaled = new RateBudget({ requests: 1, windowMs: 1_000 }, jumpingClock().clock);
    await scaled.take();
    assert.equal(scaled.nextGrantAt(), 1_020);
  });

  it("grants older than the window and margin are forgotten, not one earlier", async () => {
    const { clock, advance } = jumpingClock();
    const budget = new RateBudget({ requests: 1, windowMs: 1_000 }, clock, 100);
    await budget.take(); // t=0
    advance(1_099);
    assert.equal(budget.nextGrantAt(), 1_100, "still counted at 1099");
    advance(1);
    assert.equal(budget.nextGrantAt(), 1_100, "forgotten exactly at window + margin");
    advance(500);
    assert.equal(budget.nextGrantAt(), 1_600);
  });

  it("a pause only lengthens: an earlier or non-finite blockUntil changes nothing", async () => {
    const { clock } = jumpingClock();
    const budget = new RateBudget({ requests: 10, windowMs: 1_000 }, clock, 0);
    budget.blockUntil(3_000);
    budget.blockUntil(2_000);
    budget.blockUntil(Number.NaN);
    budget.blockUntil(Number.POSITIVE_INFINITY);
    assert.equal(budget.nextGrantAt(), 3_000);
  });
  it("a waiter paused by a 429 gives its slot back: no phantom grant holds the next window", async () => {
    const { clock, now, runUntil } = steppedClock();
    // The ledger passed in, so the test sees the grants it holds.
    const state = emptyState();
    const budget = new RateBudget({ requests: 1, windowMs: 10_000 }, clock, 0, new MemoryLedger(state));
    await budget.take();
    const granted: number[] = [];
    const waiter = budget.take().then(() => granted.push(now())); // reserved for t=10000
    await Promise.resolve();
    budget.blockUntil(10_500); // a 429 while it waits
    await runUntil(() => granted.length > 0);
    await waiter;
    // Sent when the key's window resets, past the window of the grant at 0.
    assert.deepEqual(granted, [10_500]);
    // The slot reserved for 10000 was given back: the ledger holds the one made after the pause
    // (the grant at 0 has left its window), no phantom at 10000.
    assert.deepEqual(state.grants, [10_500]);
  });

  it("a second 429 a full window after the first cuts the rate again", () => {
    const { clock, advance } = jumpingClock();
    const budget = new RateBudget({ requests: 10, windowMs: 1_000 }, clock, 0);
    budget.blockUntil(0);
    advance(1_000);
    budget.blockUntil(1_000);
    assert.equal(budget.rate(1_000), ADAPTIVE_RATE.minRequests, "cut again, not climbing from the first");
  });

  it("the rate recovers from the time of the 429, not from the clock's start", () => {
    const { clock, advance } = jumpingClock();
    const budget = new RateBudget({ requests: 10, windowMs: 1_000 }, clock, 0);
    advance(1_000);
    budget.blockUntil(1_000);
    const cut = budget.rate();
    assert.equal(cut, ADAPTIVE_RATE.minRequests, "no grant in the window: the lowest rate");
    advance(20_000);
    assert.equal(budget.rate(), 10, "back at the limit");
  });

  it("an answer read before its slot's time (a timer that fired early) never moves the grant earlier", async () => {
    // Timers that fire a millisecond early, as a real one may against the wall clock.
    let now = 0;
    const clock: Clock = { now: () => now, sleep: async (ms) => void (now += Math.max(1, ms - 1)) };
    // A margin, so that the window (not the pacing) decides the next slot.
    const budget = new RateBudget({ requests: 1, windowMs: 1_000 }, clock, 100);
    (await budget.take()).answered();
    const second = await budget.take(); // its slot is 1100; the timer woke it at 1099
    assert.equal(now, 1_099);
    second.answered();
    assert.equal(budget.nextGrantAt(), 2_200, "the window still counts from the slot, not from 1099");
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
