import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Clock } from "../../src/api/clock";
import { FileLedger, ledgerPath } from "../../src/api/fileLedger";
import { RateBudget } from "../../src/api/rateBudget";
import type { RateLimit } from "../../src/api/rateLimit";
import { killWithQueue } from "../helpers/queuedWriter";

/*
 * The budget file outlives its writers: a process killed with requests queued in it, a writer on
 * a machine whose pids cannot be asked, a writer whose wall clock ran ahead. None of them makes
 * a live process wait for slots nobody will use.
 */

const HOUR = 3_600_000;
/** A clock on the wall clock whose waits never end: the budgets here only reserve. */
const frozenWaits = (offsetMs = 0): Clock => ({
  now: () => Date.now() + offsetMs,
  sleep: () => new Promise<void>(() => undefined),
});

describe("rate budget file: what its writers leave behind", function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "dbcloud-ledger-writers-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const budgetOn = (path: string, limit: RateLimit, clock = frozenWaits()) =>
    new RateBudget(limit, clock, 0, new FileLedger(path, { limit, now: clock.now }));

  it("a process killed with SIGKILL while requests queue frees their slots; what it sent still counts", async () => {
    // One request every 20 s: the dead process's first went out, 27 more wait up to 9 minutes.
    const limit = { requests: 30, windowMs: 600_000 };
    const spacing = limit.windowMs / limit.requests;
    const path = ledgerPath("http://127.0.0.1:1", "key", limit, dir);
    const spawnedAt = Date.now();
    await killWithQueue(path, limit, 27, (text) => {
      const queued = JSON.parse(text) as { grants: number[] };
      assert.equal(queued.grants.length, 28, "its grant and 27 reservations are in the file");
    });

    const next = budgetOn(path, limit).nextGrantAt();
    assert.ok(
      next <= Date.now() + spacing,
      `next slot ${next - Date.now()} ms away: none of the 27 holds it`,
    );
    assert.ok(next >= spawnedAt + spacing, "a step after the request it sent, which the server counted");
  });

  it("a writer that let a reservation fall due a window ago without writing since is gone", () => {
    // Another machine sharing the folder (its pids cannot be asked), or a pid since reused.
    const limit = { requests: 10, windowMs: 10_000 };
    const path = ledgerPath("http://127.0.0.1:1", "key", limit, dir);
    mkdirSync(dirname(path), { mode: 0o700 });
    const now = Date.now();
    const other = "elsewhere/123";
    const grants = [now - 30_000, now - 15_000, now + 10_000, now + 20_000];
    writeFileSync(
      path,
      JSON.stringify({
        writtenAt: now - 20_000,
        grants,
        owners: grants.map(() => other),
        seen: { [other]: now - 20_000 },
        blockedUntil: 0,
        paceAt: now + 21_000,
        pauses: 0,
      }),
    );
    // Sent at -30 s; the one due at -15 s was never taken: the writer is gone, its queue with it.
    const next = budgetOn(path, limit).nextGrantAt(now);
    assert.ok(next <= Date.now(), `${next - now} ms`);

    // The same writer, keeping its appointments (it wrote after its due reservation): it waits.
    writeFileSync(
      path,
      JSON.stringify({
        writtenAt: now - 14_000,
        grants,
        owners: grants.map(() => other),
        seen: { [other]: now - 14_000 },
        blockedUntil: 0,
        paceAt: now + 21_000,
        pauses: 0,
      }),
    );
    assert.equal(budgetOn(path, limit).nextGrantAt(now), now + 21_000, "after its queue");
  });

  it("grants written while the wall clock ran an hour ahead count as now once it is set right", () => {
    const limit = { requests: 10, windowMs: 10_000 };
    const path = ledgerPath("http://127.0.0.1:1", "key", limit, dir);
    // A process whose wall clock ran an hour ahead: it sent one request and queued two.
    const ahead = frozenWaits(HOUR);
    const early = budgetOn(path, limit, ahead);
    void early.take();
    void early.take();
    void early.take();
    early.blockUntil(ahead.now() + 5_000); // and met a 429
    // The clock set right, a later process uses the key.
    const now = Date.now();
    const next = budgetOn(path, limit).nextGrantAt(now);
    assert.ok(next - now <= limit.windowMs, `next slot ${Math.round((next - now) / 1000)} s away`);
  });

  it("a process whose wall clock is set back while it runs reads the others' times as they are", async () => {
    const limit = { requests: 1, windowMs: 10_000 };
    const path = ledgerPath("http://127.0.0.1:1", "key", limit, dir);
    let wallOffset = HOUR; // it started while the wall clock ran an hour ahead
    const monotonic = frozenWaits(HOUR);
    const ledger = new FileLedger(path, {
      limit,
      now: monotonic.now,
      wallNow: () => Date.now() + wallOffset,
    });
    const running = new RateBudget(limit, monotonic, 0, ledger);
    // At once: the file keeps whole milliseconds, so the conversion may round a grant 1 ms later.
    assert.ok((await running.take()).waitedMs <= 1, "granted at once");
    wallOffset = 0; // NTP sets the wall clock right; the monotonic clock runs on
    const other = budgetOn(path, limit);
    assert.ok(other.nextGrantAt() - Date.now() <= limit.windowMs, "its grant counts as now for the other");
    // The file forgotten (a temp cleaner), the other sends at once; the running process, its
    // clock still an hour ahead of the wall, sees that grant as just made.
    rmSync(path);
    assert.equal((await other.take()).waitedMs, 0);
    const next = running.nextGrantAt() - monotonic.now();
    assert.ok(
      next >= limit.windowMs - 1_000,
      `its next slot ${next} ms away: a window after the other's grant`,
    );
  });
});
