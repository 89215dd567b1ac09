import assert from "node:assert/strict";
import { lockableLedger } from "../helpers/lockableLedger";
import { steppedClock } from "../helpers/steppedClock";
import { emptyState } from "../../src/api/ledger";
import { BudgetDeadlineError, RateBudget } from "../../src/api/rateBudget";

/* The rate budget's requests waiting for their slot, on a stepped clock: answers that come late, deadlines, 429s. */

/** Moves the stepped clock to `time`, waking every sleeper due by then in order. */
function runTo(stepped: ReturnType<typeof steppedClock>, time: number): Promise<void> {
  void stepped.clock.sleep(time - stepped.now());
  return stepped.runUntil(() => stepped.now() >= time);
}

/** Starts `take` and notes the clock time it was granted at (or the error). */
function timed(stepped: ReturnType<typeof steppedClock>, taking: Promise<unknown>) {
  const result: { at?: number; error?: unknown } = {};
  const done = taking.then(
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
    const second = timed(stepped, budget.take()); // reserved for 1100
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
    const second = timed(stepped, budget.take(1_200)); // reserved for 1000: in time
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
    const second = timed(stepped, budget.take(1_400));
    await runTo(stepped, 400);
    first.answered();
    await stepped.runUntil(() => second.error !== undefined || second.at !== undefined);
    assert.equal(second.error, undefined);
    assert.equal(second.at, 1_400);
  });

  it("a 429 re-paces every waiting request at the new rate, those reserved past its pause too", async () => {
    const stepped = steppedClock();
    const budget = new RateBudget({ requests: 10, windowMs: 1_000 }, stepped.clock, 0);
    await budget.take(); // at 0
    const second = timed(stepped, budget.take()); // paced: reserved for 100
    const third = timed(stepped, budget.take()); // reserved for 200, after the pause below
    const fourth = timed(stepped, budget.take()); // reserved for 300
    await stepped.runUntil(() => second.at !== undefined);
    budget.blockUntil(150); // a 429 for the second: the key's window is full until 150
    await stepped.runUntil(() => fourth.at !== undefined);
    // Its share: the 2 grants of which the server took 1; the rate drops to the cut of it. The
    // third, due after the reset, goes in its turn; the fourth a spacing at the new rate later,
    // not at its old reservation.
    assert.equal(third.at, 200);
    const rate = budget.rate(200);
    assert.ok(rate < 1, `${rate}: below the share of 1`);
    assert.ok(Math.abs(fourth.at! - (200 + 1_000 / rate)) < 1e-6, `${fourth.at}`);
  });

  it("requests go out in arrival order, one every window / limit", async () => {
    const stepped = steppedClock();
    const budget = new RateBudget({ requests: 10, windowMs: 1_000 }, stepped.clock, 0);
    const order: number[] = [];
    const all = Array.from({ length: 15 }, (_, i) => budget.take().then(() => order.push(i)));
    const times: number[] = [];
    for (const one of all) void one.then(() => times.push(stepped.now()));
    await new Promise((resolve) => setImmediate(resolve)); // the first is granted before time moves
    await stepped.runUntil(() => order.length === 15);
    await Promise.all(all);
    assert.deepEqual(
      order,
      [...order].sort((a, b) => a - b),
    );
    assert.deepEqual(times.slice(0, 4), [0, 100, 200, 300], "one every window / limit");
    for (let i = 10; i < times.length; i++) assert.ok(times[i] - times[i - 10] >= 1_000, `window at ${i}`);
  });

  it("a grant answered after it left the window changes nothing", async () => {
    const stepped = steppedClock();
    const budget = new RateBudget({ requests: 2, windowMs: 1_000 }, stepped.clock, 0);
    const slow = await budget.take(); // t=0, its answer comes only at 2000
    await runTo(stepped, 2_000);
    await budget.take(); // t=2000: the grant at 0 is forgotten now
    const next = timed(stepped, budget.take()); // paced: reserved for 2500
    slow.answered();
    await stepped.runUntil(() => next.at !== undefined);
    assert.equal(next.at, 2_500, "the forgotten grant is not counted again");
    assert.equal(budget.nextGrantAt(), 3_000, "a window after 2000, the older of the two in it");
  });

  it("a grant re-dated to its answer keeps the grants in time order", async () => {
    const stepped = steppedClock();
    // A margin, so that the window (not the pacing) decides the slots.
    const budget = new RateBudget({ requests: 1, windowMs: 1_000 }, stepped.clock, 100);
    const first = await budget.take(); // t=0
    const second = timed(stepped, budget.take()); // reserved for 1100
    await runTo(stepped, 300);
    first.answered(); // grants: 300, 1100
    assert.equal(budget.nextGrantAt(), 2_200, "the window of 1100, the latest grant, not of 300");
    const third = timed(stepped, budget.take()); // reserved for 2200
    await stepped.runUntil(() => second.at !== undefined && third.at !== undefined);
    assert.equal(second.at, 1_400, "a window and the margin after the re-dated first");
    assert.equal(third.at, 2_500);
  });

  it("a grant answered at the very time of a waiting request's slot still pushes it", async () => {
    const stepped = steppedClock();
    const budget = new RateBudget({ requests: 1, windowMs: 1_000 }, stepped.clock, 0);
    const first = await budget.take(); // t=0
    void stepped.clock.sleep(1_000); // the answer comes at 1000, before the waiter below wakes
    const second = timed(stepped, budget.take()); // reserved for 1000
    await stepped.runUntil(() => stepped.now() >= 1_000);
    assert.equal(second.at, undefined);
    first.answered(); // grants: 1000 (the first, re-dated) and 1000 (the second's reservation)
    await stepped.runUntil(() => second.at !== undefined);
    assert.equal(second.at, 2_000, "a window after the answer");
  });

  it("a slow answer read while another process holds the ledger re-dates its grant once it is free", async () => {
    const stepped = steppedClock();
    const ledger = lockableLedger();
    const budget = new RateBudget({ requests: 1, windowMs: 1_000 }, stepped.clock, 0, ledger);
    const first = await budget.take(); // t=0
    const second = timed(stepped, budget.take()); // reserved for 1000
    await runTo(stepped, 400);
    ledger.locked = true;
    first.answered(); // cannot re-date now: it retries on the clock
    ledger.locked = false;
    await stepped.runUntil(() => second.at !== undefined);
    assert.equal(second.at, 1_400, "a window after the answer");
  });

  it("a request that found the ledger locked is dated no earlier than a grant re-dated meanwhile", async () => {
    const stepped = steppedClock();
    const state = emptyState();
    const ledger = lockableLedger(state);
    const budget = new RateBudget({ requests: 2, windowMs: 1_000 }, stepped.clock, 0, ledger);
    const first = await budget.take(); // t=0; the pace allows the next at 500
    await runTo(stepped, 590);
    ledger.locked = true;
    const second = timed(stepped, budget.take()); // asks at 590, retries on the clock
    await runTo(stepped, 600);
    ledger.locked = false;
    first.answered(); // re-dated to 600 before the second gets the ledger
    await stepped.runUntil(() => second.at !== undefined);
    assert.deepEqual(state.grants, [600, 600], "in time order: the second counts from 600, not from 590");
  });

  it("a request waiting for its slot holds it: the next one is a window and the margin later", async () => {
    const stepped = steppedClock();
    const budget = new RateBudget({ requests: 1, windowMs: 1_000 }, stepped.clock, 100);
    await budget.take(); // t=0
    const waiting = timed(stepped, budget.take(1_100)); // its slot, 1100, is exactly its deadline
    assert.equal(budget.nextGrantAt(), 2_200, "counted from the reservation before it goes");
    await stepped.runUntil(() => waiting.at !== undefined);
    assert.equal(waiting.at, 1_100);
  });

  it("a waiter paused again by a second 429 takes the first slot after the new pause", async () => {
    const stepped = steppedClock();
    const budget = new RateBudget({ requests: 1, windowMs: 1_000 }, stepped.clock, 0);
    budget.blockUntil(500);
    const waiter = timed(stepped, budget.take()); // reserved for 500, its only grant
    budget.blockUntil(800); // another caller's 429 while it waits
    await stepped.runUntil(() => waiter.at !== undefined);
    assert.equal(waiter.at, 800, "the slot at 500 was given back, not kept as a phantom");
  });

  it("a waiter whose reservation a 429 dropped does not share the slot of a later request reserved at the same time", async () => {
    const stepped = steppedClock();
    const budget = new RateBudget({ requests: 1, windowMs: 1_000 }, stepped.clock, 0);
    await budget.take(); // at 0
    const first = timed(stepped, budget.take()); // reserved for 1000
    await runTo(stepped, 50);
    budget.blockUntil(5_000); // first's reservation is dropped; the pace restarts at the reset
    await runTo(stepped, 1_000); // first wakes to find its slot gone and re-reserves the reset, 5000
    budget.blockUntil(4_900); // another 429 of that window: 5000 is dropped again, the pace is 5000 again
    const second = timed(stepped, budget.take()); // reserves 5000, the same time first remembers
    await stepped.runUntil(() => first.at !== undefined && second.at !== undefined);
    assert.ok(
      Math.abs(second.at! - first.at!) >= 1_000,
      `at most one grant per window: ${first.at} and ${second.at}`,
    );
  });

  it("a waiter queued before the 429 is granted only after the pause", async () => {
    const { clock, now, runUntil } = steppedClock();
    const budget = new RateBudget({ requests: 1, windowMs: 1_000 }, clock, 0);
    await budget.take(); // t=0
    const granted: number[] = [];
    const waiter = budget.take().then(() => granted.push(now())); // queued for t=1000
    await Promise.resolve();
    budget.blockUntil(5_000); // a 429 arrives while it waits
    await runUntil(() => granted.length > 0);
    await waiter;
    assert.deepEqual(granted, [5_000]);
  });
});
