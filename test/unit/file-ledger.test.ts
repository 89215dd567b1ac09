import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Clock } from "../../src/api/clock";
import { FileLedger, ledgerBase, ledgerPath } from "../../src/api/fileLedger";
import { BudgetDeadlineError, RateBudget } from "../../src/api/rateBudget";
import { steppedClock } from "../helpers/steppedClock";

/* The file that shares a key's rate budget between processes: where it lives, what it reads, locking. */

// One request a window: pacing and the window agree, so the tests read simply.
const limit = { requests: 1, windowMs: 60_000 };
const realClock: Clock = { now: () => Date.now(), sleep: async () => undefined };

describe("rate budget file ledger", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "dbcloud-file-ledger-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const budgetOn = (path: string, clock = realClock, on = limit) =>
    new RateBudget(on, clock, 0, new FileLedger(path, { limit: on, now: clock.now }));
  /**
   * A file for processes to share, and a stepped clock near the real time (so the file keeps a
   * pause: an expired one is dropped with it); `base` is the real time at the clock's zero.
   */
  const sharedFileOnSteppedClock = () => {
    const stepped = steppedClock();
    const base = Date.now();
    const clock: Clock = { now: () => base + stepped.now(), sleep: stepped.clock.sleep };
    return { path: ledgerPath("http://127.0.0.1:1", "key", limit, dir), stepped, base, clock };
  };
  /** A ledger and what it says: it warns once, when it gives the file up for memory. */
  const watched = (path: string) => {
    const warnings: string[] = [];
    return { ledger: new FileLedger(path, { limit, warn: (message) => warnings.push(message) }), warnings };
  };

  it("lives in a folder of this user's, under a plain hex name", () => {
    const path = ledgerPath("http://127.0.0.1:1", "key", limit, dir);
    assert.equal(dirname(path), join(dir, `pulumi-dbcloud-${process.getuid!()}`));
    assert.match(path, /[/\\]budget-[0-9a-f]{32}\.json$/);
  });

  it("makes its folder, for this user only, and a file only this user can read", async () => {
    const path = ledgerPath("http://127.0.0.1:1", "key", limit, dir);
    const { ledger, warnings } = watched(path);
    await new RateBudget(limit, realClock, 0, ledger).acquire();
    assert.deepEqual(warnings, []);
    assert.equal(statSync(dirname(path)).mode & 0o777, 0o700);
    assert.equal(statSync(path).mode & 0o777, 0o600);
  });

  it("falls back to memory, keeping what it decided, when the file cannot be written", async () => {
    const path = ledgerPath("http://127.0.0.1:1", "key", limit, dir);
    mkdirSync(path, { recursive: true }); // something else sits where the file goes
    writeFileSync(join(path, "other"), "");
    const { ledger, warnings } = watched(path);
    const budget = new RateBudget({ requests: 1, windowMs: 60_000 }, realClock, 0, ledger);
    assert.equal(await budget.acquire(), 0);
    assert.equal(warnings.length, 1, "it gave the file up, and said so once");
    assert.ok(budget.nextGrantAt() > Date.now() + 59_000, "the grant just made still counts");
  });

  it("reads only the times in a damaged file, in time order", () => {
    const path = ledgerPath("http://127.0.0.1:1", "key", limit, dir);
    mkdirSync(dirname(path), { mode: 0o700 });
    const now = Date.now();
    writeFileSync(
      path,
      JSON.stringify({ grants: [now - 10, "soon", null, now - 50_000], blockedUntil: "later" }),
    );
    const two = { requests: 2, windowMs: 60_000 };
    assert.equal(
      budgetOn(path, realClock, two).nextGrantAt(now),
      now + 10_000,
      "a window after the older of the two grants",
    );
    writeFileSync(path, JSON.stringify({ grants: "none", blockedUntil: 0 }));
    assert.equal(budgetOn(path, realClock, two).nextGrantAt(now), now);
  });

  it("leaves no file once its grants are forgotten, but keeps one for a pause", async () => {
    const path = ledgerPath("http://127.0.0.1:1", "key", limit, dir);
    let offset = 0;
    const clock: Clock = { now: () => Date.now() + offset, sleep: async () => undefined };
    const budget = budgetOn(path, clock);
    await budget.acquire();
    assert.ok(existsSync(path));
    offset = 61_000;
    budget.nextGrantAt(); // the grant has left the window
    assert.equal(existsSync(path), false, "nothing left to share");

    budgetOn(path).blockUntil(Date.now() + 30_000); // a 429, and no grant in the window
    assert.ok(existsSync(path));
    assert.ok(budgetOn(path).nextGrantAt() >= Date.now() + 29_000, "another process sees the pause");
  });

  it("forgets a 429 once the rate is back at the limit: no file is left for it", () => {
    const path = ledgerPath("http://127.0.0.1:1", "key", limit, dir);
    let offset = 0;
    const clock: Clock = { now: () => Date.now() + offset, sleep: async () => undefined };
    const budget = budgetOn(path, clock);
    budget.blockUntil(clock.now() + 1_000);
    offset = 60 * limit.windowMs; // the climb is long over, the pause and every grant too
    assert.equal(budget.rate(), limit.requests);
    budget.nextGrantAt();
    assert.equal(existsSync(path), false, "nothing left to share");
  });

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
    await assert.rejects(budgetOn(path).acquire(Date.now() + 5_000), BudgetDeadlineError);
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
    assert.equal(await new RateBudget(limit, realClock, 0, ledger).acquire(), 0);
    assert.deepEqual(warnings, [], "it took the lock over, and shares the file still");
  });

  it("a waiter whose reservation vanished with the file does not give back another process's grant", async () => {
    const { path, stepped, base, clock } = sharedFileOnSteppedClock();
    const oneAtATime = { requests: 1, windowMs: 1_000 };
    const a = budgetOn(path, clock, oneAtATime);
    const b = budgetOn(path, clock, oneAtATime);
    a.blockUntil(base + 500);
    let grantedAt: number | undefined;
    void a.acquire().then(() => (grantedAt = stepped.now())); // reserved for 500
    rmSync(path); // a temp cleaner removes the file while it waits
    assert.equal(await b.acquire(), 0, "the other process finds a fresh file: granted at once");
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
    assert.equal(await a.acquire(), 0);
    const now = Date.now();
    assert.ok(a.nextGrantAt(now) >= now + 59_000, "the next request waits for the window");
    assert.ok(b.nextGrantAt(now) >= now + 59_000, "in the other process too");
    await assert.rejects(b.acquire(now + 1_000), BudgetDeadlineError);

    const c = new RateBudget(
      limit,
      realClock,
      0,
      new FileLedger(ledgerPath("http://127.0.0.1:1", "other", limit, dir), { limit }),
    );
    assert.equal(await c.acquire(), 0, "another key has its own file");
    c.blockUntil(Date.now() + 30_000);
    const d = new RateBudget(
      limit,
      realClock,
      0,
      new FileLedger(ledgerPath("http://127.0.0.1:1", "other", limit, dir), { limit }),
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
    const { ledger, warnings } = watched(path);
    const budget = new RateBudget(limit, realClock, 0, ledger);
    await budget.acquire(); // creates the folder
    writeFileSync(`${path}.lock`, "");
    const old = (Date.now() - 60_000) / 1000;
    utimesSync(`${path}.lock`, old, old);
    const started = Date.now();
    await budget.acquire();
    assert.ok(Date.now() - started < 1_000);
    assert.deepEqual(warnings, []);
    assert.equal(existsSync(`${path}.lock`), false);
  });

  it("falls back to this process's memory when the folder cannot be made", async () => {
    const notAFolder = join(dir, "file");
    writeFileSync(notAFolder, "");
    const { ledger, warnings } = watched(ledgerPath("http://127.0.0.1:1", "key", limit, notAFolder));
    const budget = new RateBudget(limit, realClock, 0, ledger);
    assert.equal(await budget.acquire(), 0);
    assert.ok(budget.nextGrantAt() > Date.now() + 59_000, "still a budget");
    assert.equal(warnings.length, 1, "it gave the file up, and said so once");
  });

  it("prefers the per-user runtime folder when it is this user's alone, else the temp folder", () => {
    const runtime = join(dir, "runtime");
    mkdirSync(runtime, { mode: 0o700 });
    chmodSync(runtime, 0o700);
    assert.equal(ledgerBase({ XDG_RUNTIME_DIR: runtime }), runtime);
    assert.equal(ledgerBase({ XDG_RUNTIME_DIR: "relative/runtime" }), tmpdir());
    symlinkSync(runtime, join(dir, "link"));
    assert.equal(ledgerBase({ XDG_RUNTIME_DIR: join(dir, "link") }), tmpdir());
    chmodSync(runtime, 0o755);
    assert.equal(ledgerBase({ XDG_RUNTIME_DIR: runtime }), tmpdir());
    assert.equal(ledgerBase({}), tmpdir());
  });

  it("a waiter whose reservation vanished with the file counts its grant again when it goes", async () => {
    const { path, stepped, base, clock } = sharedFileOnSteppedClock();
    const oneAtATime = { requests: 1, windowMs: 1_000 };
    const a = budgetOn(path, clock, oneAtATime);
    await a.acquire(); // at 0
    let grantedAt: number | undefined;
    void a.acquire().then(() => (grantedAt = stepped.now())); // reserved for 1000
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
    const { path, stepped, clock } = sharedFileOnSteppedClock();
    const oneAtATime = { requests: 1, windowMs: 1_000 };
    const a = budgetOn(path, clock, oneAtATime);
    const b = budgetOn(path, clock, oneAtATime);
    await a.acquire(); // at 0
    let grantedAt: number | undefined;
    void a.acquire().then(() => (grantedAt = stepped.now())); // reserved for 1000
    rmSync(path); // a temp cleaner removes the file while it waits
    void stepped.clock.sleep(500);
    await stepped.runUntil(() => stepped.now() >= 500);
    assert.equal(await b.acquire(), 0, "the other process finds a fresh file: granted at once, at 500");
    await stepped.runUntil(() => grantedAt !== undefined);
    assert.equal(grantedAt, 1_500, "a window after the other's grant");
  });

  it("a waiter whose reservation vanished with the file counts it again, dropping no other grant", async () => {
    const { path, stepped, base, clock } = sharedFileOnSteppedClock();
    const twoAWindow = { requests: 2, windowMs: 1_000 };
    const a = budgetOn(path, clock, twoAWindow);
    const b = budgetOn(path, clock, twoAWindow);
    await a.acquire(); // at 0
    let grantedAt: number | undefined;
    void a.acquire().then(() => (grantedAt = stepped.now())); // paced: reserved for 500
    rmSync(path); // a temp cleaner removes the file while it waits
    void stepped.clock.sleep(100);
    await stepped.runUntil(() => stepped.now() >= 100);
    assert.equal(await b.acquire(), 0, "the other process finds a fresh file: granted at once, at 100");
    void b.acquire(); // paced: reserved for 600
    await stepped.runUntil(() => grantedAt !== undefined);
    assert.equal(grantedAt, 500);
    assert.equal(
      b.nextGrantAt() - base,
      1_500,
      "a window after 500: 100, 500 and the reservation at 600 count",
    );
  });

  it("a 429 another process meets re-paces this one's waiters, those reserved past its pause too", async () => {
    const { path, stepped, base, clock } = sharedFileOnSteppedClock();
    const tenAWindow = { requests: 10, windowMs: 1_000 };
    const a = budgetOn(path, clock, tenAWindow);
    const b = budgetOn(path, clock, tenAWindow);
    await a.acquire(); // at 0
    const times: number[] = [];
    for (let i = 0; i < 2; i++) void a.acquire().then(() => times.push(stepped.now())); // for 100 and 200
    void stepped.clock.sleep(50);
    await stepped.runUntil(() => stepped.now() >= 50);
    b.blockUntil(base + 150); // the key's window is full until 150; a's grant at 0 was its only one
    await stepped.runUntil(() => times.length === 2);
    // The first goes when the key's window resets; that 429 found no share: the next one is
    // paced at the lowest rate, not at 200, its old reservation past the pause.
    assert.equal(times[0], 150, "at the reset");
    assert.ok(times[1] >= 150 + 1_000 / 1, `${times[1]}: paced at the lowered rate`);
  });

  it("no time read from a damaged file holds the budget back further than its window", () => {
    const path = ledgerPath("http://127.0.0.1:1", "key", limit, dir);
    mkdirSync(dirname(path), { mode: 0o700 });
    const now = Date.now();
    const far = now + 1e12; // a damaged file: no writer named, nothing to believe
    writeFileSync(path, JSON.stringify({ grants: [far], blockedUntil: far, paceAt: far }));
    assert.ok(budgetOn(path).nextGrantAt(now) <= Date.now() + limit.windowMs, "the grant counts as now");
    writeFileSync(path, JSON.stringify({ grants: [], blockedUntil: far, paceAt: 0 }));
    const pausedUntil = budgetOn(path).nextGrantAt(now);
    assert.ok(pausedUntil <= Date.now() + limit.windowMs && pausedUntil >= now + limit.windowMs - 1_000);
  });
});
