import assert from "node:assert/strict";
import { steppedClock } from "../helpers/steppedClock";
import { virtualClock } from "../helpers/virtualClock";
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
});
