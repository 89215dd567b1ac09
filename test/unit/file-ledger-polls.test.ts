import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { budgetOn, sharedFileOnSteppedClock } from "../helpers/fileLedgerBudget";

/*
 * Processes sharing one budget file serve their polls in one order (src/api/pollOrder.ts), as one
 * process would: each says in the file where its first waiting poll ranks, and a free slot goes to
 * the poll ranked first among them, not to the process that happens to look first.
 */

const oneAtATime = { requests: 1, windowMs: 1_000 };
/** A poll whose service has waited `waitedMs`, unseen all that time (so it is due). */
const hint = (waitedMs: number) => ({ waitedMs: () => waitedMs, unseenMs: () => waitedMs });

describe("polls of processes sharing a budget file", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "dbcloud-file-polls-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("a free slot goes to the poll that has waited longest in any process, not to the first to look", async () => {
    const { path, stepped, clock } = sharedFileOnSteppedClock(dir);
    const a = budgetOn(path, clock, oneAtATime);
    const b = budgetOn(path, clock, oneAtATime);
    await a.take(); // a command at 0: the next slot is at 1000
    const grantedAt: Record<string, number> = {};
    void a.take(undefined, hint(1_000)).then(() => (grantedAt.short = stepped.now()));
    void b.take(undefined, hint(60_000)).then(() => (grantedAt.long = stepped.now()));
    await stepped.runUntil(() => Object.keys(grantedAt).length === 2);
    // Both wake at 1000, the process with the shorter wait first.
    assert.deepEqual(grantedAt, { long: 1_000, short: 2_000 });
  });

  it("the bid of a process that stopped asking lapses: the others' polls go within two slots", async () => {
    const { path, stepped, clock } = sharedFileOnSteppedClock(dir);
    const a = budgetOn(path, clock, oneAtATime);
    const b = budgetOn(path, clock, oneAtATime);
    await a.take(); // the next slot is at 1000
    const gone = new AbortController();
    const abandoned = b.take(undefined, hint(60_000), gone.signal).catch((error: unknown) => error);
    let grantedAt: number | undefined;
    void a.take(undefined, hint(1_000)).then(() => (grantedAt = stepped.now()));
    gone.abort(new Error("cancelled")); // after it said its bid, at 0
    assert.ok((await abandoned) instanceof Error);
    await stepped.runUntil(() => grantedAt !== undefined);
    assert.ok(grantedAt !== undefined && grantedAt <= 2_000, `granted at ${grantedAt}`);
  });

  it("a bid dated a little ahead (another process's clock maps wall time a step apart) still holds a later-ranked poll back", async () => {
    const { path, stepped, base, clock } = sharedFileOnSteppedClock(dir);
    mkdirSync(dirname(path), { mode: 0o700 });
    writeFileSync(
      path,
      JSON.stringify({ writtenAt: base, bids: [{ id: "other", key: -1e15, at: base + 500 }] }),
    );
    let grantedAt: number | undefined;
    void budgetOn(path, clock, oneAtATime)
      .take(undefined, hint(1_000))
      .then(() => (grantedAt = stepped.now()));
    await new Promise((resolve) => setImmediate(resolve));
    await stepped.runUntil(() => grantedAt !== undefined);
    assert.ok(grantedAt! > 0, "held back until the other process's bid lapsed");
  });

  it("no bid read from a damaged or lying file holds a poll back", async () => {
    const { path, stepped, base, clock } = sharedFileOnSteppedClock(dir);
    mkdirSync(dirname(path), { mode: 0o700 });
    const first = -1e15; // ranked before any poll
    const bids = [null, 7, { id: 7, key: first, at: base }, { id: "x".repeat(65), key: first, at: base }];
    const lying = [
      { id: "future", key: first, at: base + 3_600_000 },
      { id: "lapsed", key: first, at: base - 60_000 },
    ];
    writeFileSync(path, JSON.stringify({ writtenAt: base, bids: [...bids, ...lying] }));
    let grantedAt: number | undefined;
    void budgetOn(path, clock, oneAtATime)
      .take(undefined, hint(1_000))
      .then(() => (grantedAt = stepped.now()));
    await new Promise((resolve) => setImmediate(resolve)); // a grant at once resolves in this turn's tasks
    await stepped.runUntil(() => grantedAt !== undefined);
    assert.equal(grantedAt, 0, "granted at once");
  });
});
