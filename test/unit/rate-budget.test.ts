import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Clock } from "../../src/api/clock";
import { FileLedger, ledgerPath } from "../../src/api/fileLedger";
import { ADAPTIVE_RATE, BudgetDeadlineError, defaultMarginMs, RateBudget } from "../../src/api/rateBudget";

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

describe("rate budget: polls after commands, most likely done first (virtual clock)", () => {
  it("a poll waits behind reservations, even ones made after it", async () => {
    const { clock, run } = virtualClock();
    const budget = new RateBudget({ requests: 1, windowMs: 1_000 }, clock, 0);
    const order: string[] = [];
    await budget.acquire(); // t=0
    const poll = budget
      .acquire(undefined, { likelihood: () => 1 })
      .then(() => order.push(`poll@${clock.now()}`));
    const command = budget.acquire().then(() => order.push(`command@${clock.now()}`));
    await run(5_000);
    await Promise.all([poll, command]);
    assert.deepEqual(order, ["command@1000", "poll@2000"]);
  });

  it("serves the waiting poll most likely to find its service done, not the oldest", async () => {
    const { clock, run } = virtualClock();
    const budget = new RateBudget({ requests: 1, windowMs: 1_000 }, clock, 0);
    await budget.acquire();
    const order: string[] = [];
    for (const [name, likelihood] of [
      ["far", 0.1],
      ["near", 0.9],
      ["middle", 0.5],
    ] as const) {
      void budget.acquire(undefined, { likelihood: () => likelihood }).then(() => order.push(name));
    }
    await run(10_000);
    assert.deepEqual(order, ["near", "middle", "far"]);
  });

  it("a poll still waiting when its deadline comes fails then, with nothing sent", async () => {
    const { clock, run } = virtualClock();
    const budget = new RateBudget({ requests: 1, windowMs: 10_000 }, clock, 0);
    await budget.acquire();
    const outcome = budget.acquire(5_000 + 10_000, { likelihood: () => 0 }).catch((e: unknown) => e);
    void budget.acquire(); // a command takes the slot at 10 s
    await run(30_000);
    const error = await outcome;
    assert.ok(error instanceof BudgetDeadlineError, String(error));
    assert.equal(budget.stats.granted, 2);
  });

  it("a poll whose first free slot lies past its deadline fails at once", async () => {
    const { clock } = virtualClock();
    const budget = new RateBudget({ requests: 1, windowMs: 10_000 }, clock, 0);
    await budget.acquire();
    await assert.rejects(budget.acquire(5_000, { likelihood: () => 1 }), BudgetDeadlineError);
  });
});

describe("rate budget: a grant counts from its answer (virtual clock)", () => {
  it("a slow answer pushes the slots reserved after it, so a server window opened late is respected", async () => {
    const { clock, run } = virtualClock();
    const budget = new RateBudget({ requests: 1, windowMs: 1_000 }, clock, 0);
    const first = await budget.take(); // granted at 0, its request still on its way
    let secondAt: number | undefined;
    const second = budget.acquire().then(() => (secondAt = clock.now())); // reserved for 1000
    await run(400);
    first.answered(); // the server saw it at 400 at the latest: its window may close only at 1400
    await run(5_000);
    await second;
    assert.equal(secondAt, 1_400);
  });
});

describe("rate budget: adapts to 429s (virtual clock)", () => {
  it("cuts the rate on a 429, once per window, and recovers along a cubic curve", async () => {
    const { clock, run } = virtualClock();
    const limit = { requests: 10, windowMs: 1_000 };
    const budget = new RateBudget(limit, clock, 0);
    assert.equal(budget.rateFraction(), 1);
    budget.blockUntil(100);
    budget.blockUntil(200); // the same throttle seen by another waiter: no second cut
    assert.equal(budget.rateFraction(), ADAPTIVE_RATE.decrease);
    assert.equal(budget.stats.throttles, 1);
    const recoverMs = ADAPTIVE_RATE.recoverWindows * limit.windowMs;
    await run(recoverMs / 2);
    const half = 1 - (1 - ADAPTIVE_RATE.decrease) * 0.5 ** 3;
    assert.ok(Math.abs(budget.rateFraction() - half) < 1e-9);
    await run(recoverMs);
    assert.equal(budget.rateFraction(), 1);
    // Repeated 429s: never under the floor.
    for (let i = 0; i < 20; i++) {
      budget.blockUntil(clock.now());
      await run(clock.now() + limit.windowMs);
    }
    assert.ok(budget.rateFraction() >= ADAPTIVE_RATE.floor);
  });

  it("holds fewer grants per window while the rate is lowered", async () => {
    const { clock } = virtualClock();
    const budget = new RateBudget({ requests: 10, windowMs: 1_000 }, clock, 0);
    budget.blockUntil(0);
    for (let i = 0; i < 7; i++) assert.equal(await budget.acquire(), 0);
    assert.equal(budget.nextGrantAt(), 1_000, "the 8th waits: 7 of 10 per window");
  });

  it("adds a margin of 100 ms to the real 10 s window and 1 % (at least 20 ms) to scaled ones", () => {
    assert.equal(defaultMarginMs({ requests: 10, windowMs: 10_000 }), 100);
    assert.equal(defaultMarginMs({ requests: 10, windowMs: 60_000 }), 100);
    assert.equal(defaultMarginMs({ requests: 10, windowMs: 5_000 }), 50);
    assert.equal(defaultMarginMs({ requests: 10, windowMs: 500 }), 20);
  });
});

describe("rate budget shared through a file (processes on one machine, one key)", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "dbcloud-ledger-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const realClock: Clock = { now: () => Date.now(), sleep: async () => undefined };
  const limit = { requests: 2, windowMs: 60_000 };

  it("two budgets on one file share the window and the pause of a 429", async () => {
    const path = ledgerPath("http://127.0.0.1:1", "key", limit, dir);
    const a = new RateBudget(limit, realClock, 0, new FileLedger(path));
    const b = new RateBudget(limit, realClock, 0, new FileLedger(path));
    assert.equal(await a.acquire(), 0);
    assert.equal(await b.acquire(), 0);
    const now = Date.now();
    assert.ok(a.nextGrantAt(now) >= now + 59_000, "the third request waits for the window");
    assert.ok(b.nextGrantAt(now) >= now + 59_000);
    await assert.rejects(b.acquire(now + 1_000), BudgetDeadlineError);

    const c = new RateBudget(
      limit,
      realClock,
      0,
      new FileLedger(ledgerPath("http://127.0.0.1:1", "other", limit, dir)),
    );
    assert.equal(await c.acquire(), 0, "another key has its own file");
    c.blockUntil(Date.now() + 30_000);
    const d = new RateBudget(
      limit,
      realClock,
      0,
      new FileLedger(ledgerPath("http://127.0.0.1:1", "other", limit, dir)),
    );
    assert.ok(d.nextGrantAt() >= Date.now() + 29_000, "a 429 seen by one pauses the other");
  });

  it("names the file by a hash of URL, key id and limit: no key material in it", () => {
    const path = ledgerPath("https://api.example.com", "key-id-123", limit, dir);
    assert.ok(!path.includes("key-id-123") && !path.includes("example"));
    assert.notEqual(path, ledgerPath("https://api.example.com", "key-id-124", limit, dir));
  });

  it("breaks a lock left by a process that died holding it", async () => {
    const path = ledgerPath("http://127.0.0.1:1", "key", limit, dir);
    const ledger = new FileLedger(path);
    const budget = new RateBudget(limit, realClock, 0, ledger);
    await budget.acquire(); // creates the folder
    writeFileSync(`${path}.lock`, "");
    const old = (Date.now() - 60_000) / 1000;
    utimesSync(`${path}.lock`, old, old);
    const started = Date.now();
    await budget.acquire();
    assert.ok(Date.now() - started < 1_000);
    assert.equal(ledger.local, false);
    assert.equal(existsSync(`${path}.lock`), false);
  });

  it("falls back to this process's memory when the folder cannot be made", async () => {
    const notAFolder = join(dir, "file");
    writeFileSync(notAFolder, "");
    const ledger = new FileLedger(ledgerPath("http://127.0.0.1:1", "key", limit, notAFolder));
    const budget = new RateBudget(limit, realClock, 0, ledger);
    assert.equal(await budget.acquire(), 0);
    assert.equal(await budget.acquire(), 0);
    assert.ok(budget.nextGrantAt() > Date.now() + 59_000, "still a budget");
    assert.equal(ledger.local, true);
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
