import assert from "node:assert/strict";
import type { Clock } from "../../src/api/clock";
import { emptyState, MemoryLedger } from "../../src/api/ledger";
import { ADAPTIVE_RATE, BudgetDeadlineError, RateBudget } from "../../src/api/rateBudget";
import { steppedClock } from "../helpers/steppedClock";
import { virtualClock as jumpingClock } from "../helpers/virtualClock";

// The rate budget's edges: deadlines, margins, forgotten grants, pauses and the recovery after a
// 429, on a clock the tests move by hand.

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
