import assert from "node:assert/strict";
import type { Clock } from "../../src/api/clock";
import { LEDGER_RETRY_MS } from "../../src/api/ledger";
import { BudgetDeadlineError, RateBudget } from "../../src/api/rateBudget";
import { lockableLedger } from "../helpers/lockableLedger";
import { steppedClock } from "../helpers/steppedClock";

/* Polls on the rate budget (stepped clock): deadlines, expiry, ties, stats and wake-ups. */

const limit = { requests: 1, windowMs: 1_000 };
/** A poll whose service has waited `waitedMs` and was last seen as long ago (so it is due). */
const hint = (waitedMs: number) => ({ waitedMs: () => waitedMs, unseenMs: () => waitedMs });

/** Starts `take` and notes the clock time it was granted at (or the error). */
function timed(now: () => number, taking: Promise<unknown>) {
  const result: { at?: number; error?: unknown } = {};
  void taking.then(
    () => (result.at = now()),
    (error: unknown) => (result.error = error),
  );
  return result;
}

describe("rate budget: polls (stepped clock)", () => {
  it("a poll whose slot comes by its deadline is granted then, even exactly at the deadline", async () => {
    const { clock, now, runUntil } = steppedClock();
    const budget = new RateBudget(limit, clock, 0);
    await budget.take(); // t=0
    const poll = timed(now, budget.take(1_000, hint(0.5)));
    await runUntil(() => poll.at !== undefined || poll.error !== undefined);
    assert.equal(poll.error, undefined);
    assert.equal(poll.at, 1_000);
  });

  it("a poll that gives up at its deadline leaves the other polls waiting", async () => {
    const { clock, now, runUntil } = steppedClock();
    const budget = new RateBudget(limit, clock, 0);
    await budget.take(); // t=0
    const patient = timed(now, budget.take(undefined, hint(0)));
    const hurried = timed(now, budget.take(1_000, hint(0)));
    void budget.take(); // a command takes the slot at 1000: the hurried poll cannot make it
    await runUntil(() => patient.at !== undefined);
    assert.ok(hurried.error instanceof BudgetDeadlineError, String(hurried.error));
    assert.equal(patient.at, 2_000);
  });

  it("a poll that gave up leaves no grant behind", async () => {
    const { clock, now, runUntil } = steppedClock();
    const budget = new RateBudget(limit, clock, 0);
    await budget.take(); // t=0
    const poll = timed(now, budget.take(1_000, hint(1)));
    void budget.take(); // the command takes the slot at 1000; the poll fails at 1001
    await runUntil(() => false);
    assert.ok(poll.error instanceof BudgetDeadlineError, String(poll.error));
    assert.equal(budget.nextGrantAt(2_000), 2_000, "the slot after the command's is free");
  });

  it("a granted poll counts against the window", async () => {
    const { clock } = steppedClock();
    const budget = new RateBudget(limit, clock, 0);
    assert.equal((await budget.take(undefined, hint(1))).waitedMs, 0);
    assert.equal(budget.nextGrantAt(), 1_000);
  });

  it("polls whose services have waited equally long go in arrival order", async () => {
    const { clock, runUntil } = steppedClock();
    const budget = new RateBudget(limit, clock, 0);
    await budget.take();
    const order: string[] = [];
    for (const name of ["first", "second", "third"]) {
      void budget.take(undefined, hint(0.5)).then(() => order.push(name));
    }
    await runUntil(() => order.length === 3);
    assert.deepEqual(order, ["first", "second", "third"]);
  });

  it("a poll waits while another process holds the ledger, and is granted once it is free", async () => {
    const { clock, now, runUntil } = steppedClock();
    const ledger = lockableLedger();
    const budget = new RateBudget(limit, clock, 0, ledger);
    ledger.locked = true;
    const poll = timed(now, budget.take(undefined, hint(1)));
    void clock.sleep(40);
    await runUntil(() => now() >= 40);
    assert.equal(poll.at, undefined, "no grant while the ledger cannot record it");
    ledger.locked = false;
    await runUntil(() => poll.at !== undefined);
    assert.ok(poll.at! > 40 && poll.at! <= 40 + LEDGER_RETRY_MS, `granted at ${poll.at}`);
    assert.equal(budget.nextGrantAt(), poll.at! + 1_000, "and counted");
  });

  it("polls waiting for the same slot share one wake-up timer", async () => {
    const { clock: stepped, runUntil } = steppedClock();
    const sleeps: number[] = [];
    const clock: Clock = { now: stepped.now, sleep: (ms) => (sleeps.push(ms), stepped.sleep(ms)) };
    const budget = new RateBudget(limit, clock, 0);
    await budget.take();
    let granted = 0;
    for (let i = 0; i < 5; i++) void budget.take(undefined, hint(0.5)).then(() => granted++);
    assert.deepEqual(sleeps, [1_000], "one timer for the five");
    await runUntil(() => granted === 5);
    assert.equal(granted, 5);
  });

  it("polls are still served when a timer fires a little early", async () => {
    // Sleepers wake 1 ms before their time (as a real timer may against the wall clock).
    let now = 0;
    const sleepers: { until: number; wake: () => void }[] = [];
    const clock: Clock = {
      now: () => now,
      sleep: (ms) => new Promise((wake) => sleepers.push({ until: now + Math.max(1, ms - 1), wake })),
    };
    const budget = new RateBudget(limit, clock, 0);
    await budget.take(); // t=0
    let grantedAt: number | undefined;
    void budget.take(undefined, hint(1)).then(() => (grantedAt = now));
    while (grantedAt === undefined && sleepers.length) {
      sleepers.sort((a, b) => a.until - b.until);
      const next = sleepers.shift()!;
      now = Math.max(now, next.until);
      next.wake();
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal(grantedAt, 1_000, "woken at 999, it waits the last millisecond and is served");
  });
});
