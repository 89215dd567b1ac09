import assert from "node:assert/strict";
import { type Clock } from "../../src/api/clock";
import { RateBudget } from "../../src/api/rateBudget";
import { virtualClock } from "../helpers/virtualClock";

describe("rate budget (virtual clock)", () => {
  it("grants the first at once, then paces the rest one window / limit apart", async () => {
    const { clock } = virtualClock();
    const budget = new RateBudget({ requests: 10, windowMs: 10_000 }, clock, 100);
    assert.equal((await budget.take()).waitedMs, 0);
    for (let i = 0; i < 3; i++) assert.equal((await budget.take()).waitedMs, 1_000);
  });

  it("never grants more than N in any window over a burst of 50, in arrival order", async () => {
    let now = 0;
    const grants: number[] = [];
    const clock: Clock = { now: () => now, sleep: async () => undefined };
    const budget = new RateBudget({ requests: 10, windowMs: 10_000 }, clock, 0);
    for (let i = 0; i < 50; i++) {
      const waited = (await budget.take()).waitedMs;
      grants.push(now + waited);
      now += 7; // callers arrive a few ms apart
    }
    for (let i = 1; i < grants.length; i++) assert.ok(grants[i] >= grants[i - 1], "FIFO");
    for (let i = 10; i < grants.length; i++)
      assert.ok(grants[i] - grants[i - 10] >= 10_000, `window at ${i}`);
  });

  it("blockUntil pauses every grant", async () => {
    const { clock } = virtualClock();
    const budget = new RateBudget({ requests: 10, windowMs: 1000 }, clock, 0);
    budget.blockUntil(5_000);
    assert.equal((await budget.take()).waitedMs, 5_000);
  });
});
