import assert from "node:assert/strict";
import { steppedClock } from "../helpers/steppedClock";
import { virtualClock } from "../helpers/virtualClock";
import type { Clock } from "../../src/api/clock";
import { MemoryLedger } from "../../src/api/ledger";
import { BudgetDeadlineError, RateBudget } from "../../src/api/rateBudget";

/* The rate budget's edges on a virtual clock: deadlines, the default margin, forgetting, stats. */

describe("rate budget edges", () => {
  it("a slot past the deadline throws and reserves nothing; a slot exactly at it is granted", async () => {
    const { clock } = virtualClock();
    const budget = new RateBudget({ requests: 1, windowMs: 1_000 }, clock, 0);
    await budget.acquire();
    await assert.rejects(budget.acquire(999), (error: unknown) => {
      assert.ok(error instanceof BudgetDeadlineError);
      assert.equal(error.nextSlotAt, 1_000);
      return true;
    });
    assert.equal(budget.nextGrantAt(), 1_000, "the refused call took no slot");
    assert.equal(await budget.acquire(1_000), 1_000);
    assert.equal(budget.nextGrantAt(), 2_000, "the slot taken at the deadline counts against the window");
  });

  it("the default margin is 100 ms past the real 10 s window, 1 % (at least 20 ms) of a shorter one", async () => {
    const { clock } = virtualClock();
    const real = new RateBudget({ requests: 2, windowMs: 10_000 }, clock);
    await real.acquire();
    await real.acquire();
    assert.equal(real.nextGrantAt(), 10_100);
    const scaled = new RateBudget({ requests: 2, windowMs: 1_000 }, clock);
    await scaled.acquire();
    await scaled.acquire();
    assert.equal(scaled.nextGrantAt(), 1_020);
  });

  it("grants older than the window and margin are forgotten, not one earlier", async () => {
    const { clock, advance } = virtualClock();
    const budget = new RateBudget({ requests: 1, windowMs: 1_000 }, clock, 100);
    await budget.acquire(); // t=0
    advance(1_099);
    assert.equal(budget.nextGrantAt(), 1_100, "still counted at 1099");
    advance(1);
    assert.equal(budget.nextGrantAt(), 1_100, "forgotten exactly at window + margin");
    advance(500);
    assert.equal(budget.nextGrantAt(), 1_600);
  });

  it("keeps stats of grants and waits", async () => {
    const { clock } = virtualClock();
    const budget = new RateBudget({ requests: 1, windowMs: 1_000 }, clock, 0);
    await budget.acquire();
    await budget.acquire();
    await budget.acquire();
    assert.deepEqual(budget.stats, { granted: 3, waited: 2, waitedMs: 2_000, throttles: 0 });
  });

  it("a pause only lengthens: an earlier or non-finite blockUntil changes nothing", async () => {
    const { clock } = virtualClock();
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
    const state = { grants: [] as number[], blockedUntil: 0 };
    const budget = new RateBudget({ requests: 2, windowMs: 10_000 }, clock, 0, new MemoryLedger(state));
    await budget.acquire();
    await budget.acquire();
    const granted: number[] = [];
    const waiter = budget.acquire().then(() => granted.push(now())); // reserved for t=10000
    await Promise.resolve();
    budget.blockUntil(10_500); // a 429 while it waits
    await runUntil(() => granted.length > 0);
    await waiter;
    assert.deepEqual(granted, [10_500]);
    // The slot reserved for 10000 was given back: the ledger holds only the grant made after the
    // pause (the two at 0 left the window), and no phantom at 10000. (The next slot itself lies a
    // window later: the 429 also lowered the rate, 2 x 0.7 -> 1 request per window.)
    assert.deepEqual(state.grants, [10_500]);
  });

  it("a second 429 a full window after the first cuts the rate again", () => {
    const { clock, advance } = virtualClock();
    const budget = new RateBudget({ requests: 10, windowMs: 1_000 }, clock, 0);
    budget.blockUntil(0);
    advance(1_000);
    budget.blockUntil(1_000);
    assert.equal(budget.stats.throttles, 2);
  });

  it("the rate recovers from the time of the 429, not from the clock's start", () => {
    const { clock, advance } = virtualClock();
    const budget = new RateBudget({ requests: 10, windowMs: 1_000 }, clock, 0);
    advance(1_000);
    budget.blockUntil(1_000);
    assert.equal(budget.rateFraction(), 0.7, "cut right at the 429");
    advance(3_000); // half the recovery
    assert.ok(Math.abs(budget.rateFraction() - (1 - 0.3 * 0.5 ** 3)) < 1e-9);
  });

  it("an answer read before its slot's time (a timer that fired early) never moves the grant earlier", async () => {
    // Timers that fire a millisecond early, as a real one may against the wall clock.
    let now = 0;
    const clock: Clock = { now: () => now, sleep: async (ms) => void (now += Math.max(1, ms - 1)) };
    const budget = new RateBudget({ requests: 1, windowMs: 1_000 }, clock, 0);
    (await budget.take()).answered();
    const second = await budget.take(); // its slot is 1000; the timer woke it at 999
    assert.equal(now, 999);
    second.answered();
    assert.equal(budget.nextGrantAt(), 2_000, "the window still counts from the slot, not from 999");
  });
});

/** Moves the stepped clock to `time`, waking every sleeper due by then in order. */
function runTo(stepped: ReturnType<typeof steppedClock>, time: number): Promise<void> {
  void stepped.clock.sleep(time - stepped.now());
  return stepped.runUntil(() => stepped.now() >= time);
}

/** Starts `acquire` and notes the clock time it was granted at (or the error). */
function timed(stepped: ReturnType<typeof steppedClock>, acquire: Promise<unknown>) {
  const result: { at?: number; error?: unknown } = {};
  const done = acquire.then(
    () => (result.at = stepped.now()),
    (error: unknown) => (result.error = error),
  );
  return Object.assign(result, { done });
}

describe("rate budget: requests waiting for their slot (stepped clock)", () => {
  it("a reservation pushed by a slow answer keeps the margin, and the grant holds its new time", async () => {
    const stepped = steppedClock();
    const budget = new RateBudget({ requests: 1, windowMs: 1_000 }, stepped.clock, 100);
    const first = await budget.take(); // granted at 0, answered only at 400
    const second = timed(stepped, budget.acquire()); // reserved for 1100
    await runTo(stepped, 400);
    first.answered();
    await stepped.runUntil(() => second.at !== undefined);
    assert.equal(second.at, 1_500, "a window and the margin after the answer");
    assert.equal(
      budget.nextGrantAt(),
      2_600,
      "the second grant counts from 1500, not from its first reservation",
    );
  });

  it("a waiter pushed past its deadline by a slow answer fails then, and gives its slot back", async () => {
    const stepped = steppedClock();
    const budget = new RateBudget({ requests: 1, windowMs: 1_000 }, stepped.clock, 0);
    const first = await budget.take();
    const second = timed(stepped, budget.acquire(1_200)); // reserved for 1000: in time
    await runTo(stepped, 400);
    first.answered(); // its slot moves to 1400, past the deadline
    await stepped.runUntil(() => second.error !== undefined || second.at !== undefined);
    assert.ok(second.error instanceof BudgetDeadlineError, String(second.error ?? second.at));
    assert.equal(second.error.nextSlotAt, 1_400);
    assert.equal(stepped.now(), 1_000, "it failed when it woke, not at the end of the wait");
    assert.equal(budget.nextGrantAt(), 1_400, "no grant left behind for the failed waiter");
  });

  it("a waiter pushed by a slow answer exactly to its deadline is still granted", async () => {
    const stepped = steppedClock();
    const budget = new RateBudget({ requests: 1, windowMs: 1_000 }, stepped.clock, 0);
    const first = await budget.take();
    const second = timed(stepped, budget.acquire(1_400));
    await runTo(stepped, 400);
    first.answered();
    await stepped.runUntil(() => second.error !== undefined || second.at !== undefined);
    assert.equal(second.error, undefined);
    assert.equal(second.at, 1_400);
  });

  it("a 429 lowers the rate for requests already waiting, too", async () => {
    const stepped = steppedClock();
    const budget = new RateBudget({ requests: 2, windowMs: 1_000 }, stepped.clock, 0);
    await budget.acquire(); // t=0
    await runTo(stepped, 500);
    await budget.acquire(); // t=500
    const third = timed(stepped, budget.acquire()); // reserved for 1000 at the full rate
    budget.blockUntil(500); // a 429 whose reset is now: no pause, but the rate drops to 1 per window
    await stepped.runUntil(() => third.at !== undefined);
    assert.equal(third.at, 1_500, "a window after the grant at 500");
  });

  it("requests go out in arrival order, even when the rate recovers while one waits", async () => {
    const stepped = steppedClock();
    const budget = new RateBudget({ requests: 40, windowMs: 1_000 }, stepped.clock, 0);
    budget.blockUntil(0); // the rate drops to 28 per window and recovers over 6 windows
    for (let i = 0; i < 28; i++) assert.equal(await budget.acquire(), 0);
    const order: string[] = [];
    const waiting = budget.acquire().then(() => order.push(`waiting@${stepped.now()}`)); // slot 1000
    await runTo(stepped, 500); // the rate has climbed to 30: a slot would be free now
    const later = budget.acquire().then(() => order.push(`later@${stepped.now()}`));
    await stepped.runUntil(() => order.length === 2);
    await Promise.all([waiting, later]);
    assert.deepEqual(order, ["waiting@1000", "later@1000"]);
  });

  it("a grant answered after it left the window changes nothing", async () => {
    const stepped = steppedClock();
    const budget = new RateBudget({ requests: 1, windowMs: 1_000 }, stepped.clock, 0);
    const slow = await budget.take(); // t=0, its answer comes only at 2000
    await runTo(stepped, 2_000);
    await budget.acquire(); // t=2000: the grant at 0 is forgotten now
    const next = timed(stepped, budget.acquire()); // reserved for 3000
    slow.answered();
    await stepped.runUntil(() => next.at !== undefined);
    assert.equal(next.at, 3_000);
    assert.equal(budget.nextGrantAt(), 4_000, "the reservation at 3000 was kept");
  });

  it("a grant re-dated to its answer keeps the grants in time order", async () => {
    const stepped = steppedClock();
    const budget = new RateBudget({ requests: 2, windowMs: 1_000 }, stepped.clock, 0);
    const first = await budget.take(); // t=0
    await budget.take(); // t=0
    const third = timed(stepped, budget.acquire()); // reserved for 1000
    await runTo(stepped, 300);
    first.answered(); // grants: 0, 300, 1000
    const fourth = timed(stepped, budget.acquire()); // a window after the second-last grant, 300
    await stepped.runUntil(() => third.at !== undefined && fourth.at !== undefined);
    assert.equal(third.at, 1_000);
    assert.equal(fourth.at, 1_300);
  });

  it("a waiter paused again by a second 429 takes the first slot after the new pause", async () => {
    const stepped = steppedClock();
    const budget = new RateBudget({ requests: 1, windowMs: 1_000 }, stepped.clock, 0);
    budget.blockUntil(500);
    const waiter = timed(stepped, budget.acquire()); // reserved for 500, its only grant
    budget.blockUntil(800); // another caller's 429 while it waits
    await stepped.runUntil(() => waiter.at !== undefined);
    assert.equal(waiter.at, 800, "the slot at 500 was given back, not kept as a phantom");
  });
});
