import assert from "node:assert/strict";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Clock } from "../../src/api/clock";
import { ledgerBase, ledgerPath } from "../../src/api/fileLedger";
import { RateBudget } from "../../src/api/rateBudget";
import { budgetOn, limit, realClock, watched } from "../helpers/fileLedgerBudget";

/* The file that shares a key's rate budget between processes: where it lives and what it reads. */

describe("rate budget file ledger", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "dbcloud-file-ledger-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("lives in a folder of this user's, under a plain hex name", () => {
    const path = ledgerPath("http://127.0.0.1:1", "key", limit, dir);
    assert.equal(dirname(path), join(dir, `pulumi-dbcloud-${process.getuid!()}`));
    assert.match(path, /[/\\]budget-[0-9a-f]{32}\.json$/);
  });

  it("makes its folder, for this user only, and a file only this user can read", async () => {
    const path = ledgerPath("http://127.0.0.1:1", "key", limit, dir);
    const { ledger, warnings } = watched(path);
    await new RateBudget(limit, realClock, 0, ledger).take();
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
    assert.equal((await budget.take()).waitedMs, 0);
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
    await budget.take();
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

  it("names the file by a hash of URL, key id and limit: no key material in it", () => {
    const path = ledgerPath("https://api.example.com", "key-id-123", limit, dir);
    assert.ok(!path.includes("key-id-123") && !path.includes("example"));
    assert.notEqual(path, ledgerPath("https://api.example.com", "key-id-124", limit, dir));
  });

  it("falls back to this process's memory when the folder cannot be made", async () => {
    const notAFolder = join(dir, "file");
    writeFileSync(notAFolder, "");
    const { ledger, warnings } = watched(ledgerPath("http://127.0.0.1:1", "key", limit, notAFolder));
    const budget = new RateBudget(limit, realClock, 0, ledger);
    assert.equal((await budget.take()).waitedMs, 0);
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
