import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiClient } from "../../src/api/client";
import { FileLedger, ledgerPath } from "../../src/api/fileLedger";
import { RateBudget } from "../../src/api/rateBudget";
import { startEmulator, type Emulator } from "../../src/emulator";
import { idleClock } from "../helpers/idleClock";

/*
 * Two users of one machine on one key: each has its own budget folder, so they meet only through
 * the server's 429s. Against the emulator's limiter whose 429s name the whole window as their
 * reset (as a server counting a sliding window does), each resumes at that reset and is back at
 * the share it measured within a window or two; no read fails while its deadline has room.
 */

const LIMIT = { requests: 10, windowMs: 10_000 };
const READS = 8;
/** The provider's bound on a read. */
const READ_DEADLINE_MS = 120_000;

describe("two processes sharing only a key recover from its 429s", function () {
  this.timeout(60_000);
  let emulator: Emulator | undefined;
  const folders: string[] = [];
  afterEach(async () => {
    await emulator?.close();
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  });

  it("resume at the reset, climb back to their share, and finish every read", async () => {
    const virtual = idleClock(Date.now());
    emulator = await startEmulator({ now: virtual.now, rateLimit: { ...LIMIT, reset: "window" } });
    const organizationId = randomUUID();
    const processes = [0, 1].map(() => {
      const folder = mkdtempSync(join(tmpdir(), "dbcloud-user-"));
      folders.push(folder);
      const ledger = new FileLedger(ledgerPath(emulator!.url, emulator!.keyId, LIMIT, folder), {
        limit: LIMIT,
        now: virtual.now,
      });
      const budget = new RateBudget(LIMIT, virtual.clock, undefined, ledger);
      const { keyId, keySecret, url } = emulator!;
      const client = new ApiClient({ apiUrl: url, keyId, keySecret, clock: virtual.clock, budget });
      const services = Array.from({ length: READS }, () => emulator!.addService({ organizationId }).id);
      return { budget, client, services: new Set(services) };
    });
    const started = virtual.now();
    const outcomes: string[] = [];
    const reads = processes.flatMap(({ client, services }) =>
      [...services].map((id) =>
        client.getService(organizationId, id, { deadline: started + READ_DEADLINE_MS }).then(
          () => outcomes.push("ok"),
          (error: Error) => outcomes.push(`${error.name}: ${error.message}`),
        ),
      ),
    );
    const inFlight = () =>
      processes.some(({ client: { stats } }) => {
        const answered = Object.values(stats.outcomes).reduce((sum, count) => sum + count, 0);
        return stats.attempts > answered;
      });
    await virtual.runUntil(() => outcomes.length === reads.length, inFlight);
    await Promise.all(reads);
    assert.deepEqual(outcomes, new Array<string>(reads.length).fill("ok"), "every read answered");

    for (const [index, { budget, services }] of processes.entries()) {
      const mine = emulator.requests.filter((entry) => services.has(entry.serviceId ?? ""));
      const throttled = mine.find((entry) => entry.status === 429);
      assert.ok(throttled, `process ${index} met a 429`);
      const resetAt = throttled.at + LIMIT.windowMs; // what its 429 said
      const accepted = mine.filter((entry) => entry.status === 200 && entry.at <= throttled.at);
      const after = mine.filter((entry) => entry.at > throttled.at);
      // Its first request after the 429 goes at the reset (plus the retry's jitter of at most 0.5 s).
      assert.ok(
        after[0].at <= resetAt + 500,
        `process ${index}: resumed ${after[0].at - resetAt} ms after the reset`,
      );
      // Back at the share the key took from it before the 429 within two windows of it.
      const share = accepted.filter((entry) => entry.at > throttled.at - LIMIT.windowMs).length;
      const rate = budget.rate(throttled.at + 2 * LIMIT.windowMs);
      assert.ok(
        rate >= share,
        `process ${index}: rate ${rate.toFixed(2)} two windows on, its share ${share}`,
      );
      const last = mine[mine.length - 1].at;
      assert.ok(
        last <= resetAt + LIMIT.windowMs,
        `process ${index}: last read ${last - resetAt} ms after the reset`,
      );
    }
  });
});
