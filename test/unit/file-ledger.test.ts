import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Clock } from "../../src/api/clock";
import { FileLedger, ledgerPath } from "../../src/api/fileLedger";
import { BudgetDeadlineError, RateBudget } from "../../src/api/rateBudget";
import { steppedClock } from "../helpers/steppedClock";

/* The file that shares a key's rate budget between processes: where it lives, what it reads, locking. */

const limit = { requests: 2, windowMs: 60_000 };
const realClock: Clock = { now: () => Date.now(), sleep: async () => undefined };

describe("rate budget file ledger", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "dbcloud-file-ledger-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const budgetOn = (path: string, clock = realClock) => new RateBudget(limit, clock, 0, new FileLedger(path));

  it("lives in a folder of this user's, under a plain hex name", () => {
    const path = ledgerPath("http://127.0.0.1:1", "key", limit, dir);
    assert.equal(dirname(path), join(dir, `pulumi-dbcloud-${process.getuid!()}`));
    assert.match(path, /[/\\]budget-[0-9a-f]{32}\.json$/);
  });

  it("makes missing folders, readable by this user only, and a file only this user can read", async () => {
    const path = ledgerPath("http://127.0.0.1:1", "key", limit, join(dir, "not", "yet"));
    const ledger = new FileLedger(path);
    await new RateBudget(limit, realClock, 0, ledger).acquire();
    assert.equal(ledger.local, false);
    assert.equal(statSync(dirname(path)).mode & 0o777, 0o700);
    assert.equal(statSync(path).mode & 0o777, 0o600);
  });

  it("falls back to memory, keeping what it decided, when the file cannot be written", async () => {
    const path = ledgerPath("http://127.0.0.1:1", "key", limit, dir);
    mkdirSync(path, { recursive: true }); // something else sits where the file goes
    writeFileSync(join(path, "other"), "");
    const ledger = new FileLedger(path);
    const budget = new RateBudget({ requests: 1, windowMs: 60_000 }, realClock, 0, ledger);
    assert.equal(await budget.acquire(), 0);
    assert.equal(ledger.local, true);
    assert.ok(budget.nextGrantAt() > Date.now() + 59_000, "the grant just made still counts");
  });

  it("reads only the times in a damaged file, in time order", () => {
    const path = ledgerPath("http://127.0.0.1:1", "key", limit, dir);
    mkdirSync(dirname(path), { recursive: true });
    const now = Date.now();
    writeFileSync(
      path,
      JSON.stringify({ grants: [now - 10, "soon", null, now - 50_000], blockedUntil: "later" }),
    );
    assert.equal(budgetOn(path).nextGrantAt(now), now + 10_000, "a window after the older of the two grants");
    writeFileSync(path, JSON.stringify({ grants: "none", blockedUntil: 0 }));
    assert.equal(budgetOn(path).nextGrantAt(now), now);
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

  it("waits for a lock another process holds, and sees what that process wrote", async function () {
    this.timeout(10_000);
    const path = ledgerPath("http://127.0.0.1:1", "key", limit, dir);
    mkdirSync(dirname(path), { recursive: true });
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
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(`${path}.lock`, "");
    const future = (Date.now() + 3_600_000) / 1000;
    utimesSync(`${path}.lock`, future, future);
    const ledger = new FileLedger(path);
    assert.equal(await new RateBudget(limit, realClock, 0, ledger).acquire(), 0);
    assert.equal(ledger.local, false, "it took the lock over, and shares the file still");
  });

  it("a waiter whose reservation vanished with the file does not give back another process's grant", async () => {
    const path = ledgerPath("http://127.0.0.1:1", "key", limit, dir);
    // Clock time near the real time, so the file keeps a pause (an expired one is dropped with it).
    const stepped = steppedClock();
    const base = Date.now();
    const clock: Clock = { now: () => base + stepped.now(), sleep: stepped.clock.sleep };
    const oneAtATime = { requests: 1, windowMs: 1_000 };
    const a = new RateBudget(oneAtATime, clock, 0, new FileLedger(path));
    const b = new RateBudget(oneAtATime, clock, 0, new FileLedger(path));
    a.blockUntil(base + 500);
    let grantedAt: number | undefined;
    void a.acquire().then(() => (grantedAt = stepped.now())); // reserved for 500
    rmSync(path); // a temp cleaner removes the file while it waits
    assert.equal(await b.acquire(), 0, "the other process finds a fresh file: granted at once");
    b.blockUntil(base + 800); // and then meets a 429
    await stepped.runUntil(() => grantedAt !== undefined);
    assert.equal(grantedAt, 1_000, "a window after the other's grant, which still counts");
  });
});
