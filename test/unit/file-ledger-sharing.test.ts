import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { FileLedger, ledgerPath } from "../../src/api/fileLedger";
import { LEDGER_RETRY_MS } from "../../src/api/ledger";
import { BudgetDeadlineError, RateBudget } from "../../src/api/rateBudget";
import { budgetOn, limit, realClock, sharedFileOnSteppedClock, watched } from "../helpers/fileLedgerBudget";

/*
 * Processes sharing one rate budget file: a lock another holds or left behind, one window and one
 * pause for all, and waiters whose reservation vanished with the file.
 */

describe("rate budget file shared between processes", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "dbcloud-file-ledger-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("waits for a lock another process holds, and sees what that process wrote", async function () {
    this.timeout(10_000);
    const path = ledgerPath("http://127.0.0.1:1", "key", limit, dir);
    mkdirSync(dirname(path), { mode: 0o700 });
    const holder = spawn(
      process.execPath,
      [
        "-e",
        `const fs = require("node:fs");
        fs.closeSync(fs.openSync(process.argv[1] + ".lock", "wx"));
        console.log("locked");
        setTimeout(() => {
          const now = Date.now();
          fs.writeFileSync(process.argv[1], JSON.stringify({ grants: [now, now], blockedUntil: 0 }));
          fs.unlinkSync(process.argv[1] + ".lock");
        }, 500);`,
        path,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const exited = once(holder, "exit");
    await once(holder.stdout!, "data"); // it holds the lock now
    await assert.rejects(budgetOn(path).take(Date.now() + 5_000), BudgetDeadlineError);
    await exited;
  });

  it("breaks a lock dated in the future (a clock set back) after the longest wait", async function () {
    this.timeout(10_000);
    const path = ledgerPath("http://127.0.0.1:1", "key", limit, dir);
    mkdirSync(dirname(path), { mode: 0o700 });
    writeFileSync(`${path}.lock`, "");
    const future = (Date.now() + 3_600_000) / 1000;
    utimesSync(`${path}.lock`, future, future);
    const { ledger, warnings } = watched(path);
    assert.equal((await new RateBudget(limit, realClock, 0, ledger).take()).waitedMs, 0);
    assert.deepEqual(warnings, [], "it took the lock over, and shares the file still");
  });

  it("a waiter whose reservation vanished with the file does not give back another process's grant", async () => {
    const { path, stepped, base, clock } = sharedFileOnSteppedClock(dir);
    const oneAtATime = { requests: 1, windowMs: 1_000 };
    const a = budgetOn(path, clock, oneAtATime);
    const b = budgetOn(path, clock, oneAtATime);
    a.blockUntil(base + 500);
    let grantedAt: number | undefined;
    void a.take().then(() => (grantedAt = stepped.now())); // reserved for 500
    rmSync(path); // a temp cleaner removes the file while it waits
    assert.equal((await b.take()).waitedMs, 0, "the other process finds a fresh file: granted at once");
    b.blockUntil(base + 800); // and then meets a 429
    await stepped.runUntil(() => grantedAt !== undefined);
    // The other's grant still counts: the pause ends at 800, the other's grant at 0 fills the
    // window until 1000.
    assert.equal(grantedAt, 1_000, "a window after the other's grant, past the pause");
  });

  it("two budgets on one file share the window and the pause of a 429", async () => {
    const path = ledgerPath("http://127.0.0.1:1", "key", limit, dir);
    const a = new RateBudget(limit, realClock, 0, new FileLedger(path, { limit }));
    const b = new RateBudget(limit, realClock, 0, new FileLedger(path, { limit }));
    assert.equal((await a.take()).waitedMs, 0);
    const now = Date.now();
    assert.ok(a.nextGrantAt(now) >= now + 59_000, "the next request waits for the window");
    assert.ok(b.nextGrantAt(now) >= now + 59_000, "in the other process too");
    await assert.rejects(b.take(now + 1_000), BudgetDeadlineError);

    const c = new RateBudget(
      limit,
      realClock,
      0,
      new FileLedger(ledgerPath("http://127.0.0.1:1", "other", limit, dir), { limit }),
    );
    assert.equal((await c.take()).waitedMs, 0, "another key has its own file");
    c.blockUntil(Date.now() + 30_000);
    const d = new RateBudget(
      limit,
      realClock,
      0,
      new FileLedger(ledgerPath("http://127.0.0.1:1", "other", limit, dir), { limit }),
    );
    assert.ok(d.nextGrantAt() >= Date.now() + 29_000, "a 429 seen by one pauses the other");
  });

  it("breaks a lock left by a process that died holding it", async () => {
    const path = ledgerPath("http://127.0.0.1:1", "key", limit, dir);
    const { ledger, warnings } = watched(path);
    // Every pause the budget makes is counted (and taken at once): for a busy file, or for a slot.
    const pauses: number[] = [];
    const clock = { now: realClock.now, sleep: async (ms: number) => void pauses.push(ms) };
    const budget = new RateBudget(limit, clock, 0, ledger);
    await budget.take(); // creates the folder
    writeFileSync(`${path}.lock`, "");
    const old = (Date.now() - 60_000) / 1000;
    utimesSync(`${path}.lock`, old, old);
    await budget.take();
    // What let it through: the lock broken on the first try, not after waiting on it as held
    // (until the budget breaks it as stuck, or gives the file up).
    const busyPauses = pauses.filter((ms) => ms <= LEDGER_RETRY_MS); // the other is the slot's wait
    assert.deepEqual(busyPauses, [], "no pause for a busy file");
    assert.deepEqual(warnings, []);
    assert.equal(existsSync(`${path}.lock`), false);
    const file = JSON.parse(readFileSync(path, "utf8")) as { grants: number[] };
    assert.equal(file.grants.length, 2, "both grants are in the shared file");
  });

  it("a waiter whose reservation vanished with the file counts its grant again when it goes", async () => {
    const { path, stepped, base, clock } = sharedFileOnSteppedClock(dir);
    const oneAtATime = { requests: 1, windowMs: 1_000 };
    const a = budgetOn(path, clock, oneAtATime);
    await a.take(); // at 0
    let grantedAt: number | undefined;
    void a.take().then(() => (grantedAt = stepped.now())); // reserved for 1000
    rmSync(path); // a temp cleaner removes the file while it waits
    await stepped.runUntil(() => grantedAt !== undefined);
    assert.equal(grantedAt, 1_000);
    const b = new RateBudget(
      oneAtATime,
      clock,
      0,
      new FileLedger(path, { limit: oneAtATime, now: clock.now }),
    );
    assert.equal(b.nextGrantAt() - base, 2_000, "another process sees the grant at 1000");
  });

  it("a waiter whose reservation vanished with the file waits for a grant another process made meanwhile", async () => {
    const { path, stepped, clock } = sharedFileOnSteppedClock(dir);
    const oneAtATime = { requests: 1, windowMs: 1_000 };
    const a = budgetOn(path, clock, oneAtATime);
    const b = budgetOn(path, clock, oneAtATime);
    await a.take(); // at 0
    let grantedAt: number | undefined;
    void a.take().then(() => (grantedAt = stepped.now())); // reserved for 1000
    rmSync(path); // a temp cleaner removes the file while it waits
    void stepped.clock.sleep(500);
    await stepped.runUntil(() => stepped.now() >= 500);
    assert.equal(
      (await b.take()).waitedMs,
      0,
      "the other process finds a fresh file: granted at once, at 500",
    );
    await stepped.runUntil(() => grantedAt !== undefined);
    assert.equal(grantedAt, 1_500, "a window after the other's grant");
  });

  it("a waiter whose reservation vanished with the file counts it again, dropping no other grant", async () => {
    const { path, stepped, base, clock } = sharedFileOnSteppedClock(dir);
    const twoAWindow = { requests: 2, windowMs: 1_000 };
    const a = budgetOn(path, clock, twoAWindow);
    const b = budgetOn(path, clock, twoAWindow);
    await a.take(); // at 0
    let grantedAt: number | undefined;
    void a.take().then(() => (grantedAt = stepped.now())); // paced: reserved for 500
    rmSync(path); // a temp cleaner removes the file while it waits
    void stepped.clock.sleep(100);
    await stepped.runUntil(() => stepped.now() >= 100);
    assert.equal(
      (await b.take()).waitedMs,
      0,
      "the other process finds a fresh file: granted at once, at 100",
    );
    void b.take(); // paced: reserved for 600
    await stepped.runUntil(() => grantedAt !== undefined);
    assert.equal(grantedAt, 500);
    assert.equal(
      b.nextGrantAt() - base,
      1_500,
      "a window after 500: 100, 500 and the reservation at 600 count",
    );
  });

  it("a 429 another process meets re-paces this one's waiters, those reserved past its pause too", async () => {
    const { path, stepped, base, clock } = sharedFileOnSteppedClock(dir);
    const tenAWindow = { requests: 10, windowMs: 1_000 };
    const a = budgetOn(path, clock, tenAWindow);
    const b = budgetOn(path, clock, tenAWindow);
    await a.take(); // at 0
    const times: number[] = [];
    for (let i = 0; i < 2; i++) void a.take().then(() => times.push(stepped.now())); // for 100 and 200
    void stepped.clock.sleep(50);
    await stepped.runUntil(() => stepped.now() >= 50);
    b.blockUntil(base + 150); // the key's window is full until 150; a's grant at 0 was its only one
    await stepped.runUntil(() => times.length === 2);
    // The first goes when the key's window resets; that 429 found no share: the next one is
    // paced at the lowest rate, not at 200, its old reservation past the pause.
    assert.equal(times[0], 150, "at the reset");
    assert.ok(times[1] >= 150 + 1_000 / 1, `${times[1]}: paced at the lowered rate`);
  });
});
