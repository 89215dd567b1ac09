import assert from "node:assert/strict";
import type { Clock } from "../../src/api/clock";
import { BudgetDeadlineError, RateBudget } from "../../src/api/rateBudget";

// Which waiter the rate budget serves first (polls after commands, longest waits first), and
// when a grant counts, on a virtual clock whose sleepers wake in time order.

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
