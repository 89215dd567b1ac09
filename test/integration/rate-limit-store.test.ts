import assert from "node:assert/strict";
import { createClient } from "@redis/client";
import { ApiClient } from "../../src/api/client";
import { MemoryLedger } from "../../src/api/ledger";
import { RedisBudget } from "../../src/api/redisBudget";
import { storeKeyPrefix, type StoreAddress } from "../../src/api/storeAddress";
import { StoreBudget, storeBudget } from "../../src/api/storeBudget";
import { steppedClock } from "../helpers/steppedClock";
import type { Emulator } from "../../src/emulator";
import { address, LIMIT, storeRigEachTest } from "../helpers/storeRig";

/*
 * The shared budget store on a real redis-server: budgets that share nothing but the key and the
 * store (each a "machine": its own budget and ledger) against the emulator's rate limit, and what
 * each does when the store fails. Each assertion counts requests, 429s, warnings and store
 * entries; none times anything.
 */

/** A machine on the key: its own budget (memory ledger) drawing from the store, and a client on it. */
function machine(emulator: Emulator, store: StoreAddress, warnings: string[], keyId = emulator.keyId) {
  const budget = storeBudget(emulator.url, keyId, LIMIT, new MemoryLedger(), store, (m) => warnings.push(m));
  const client = new ApiClient({
    apiUrl: emulator.url,
    keyId,
    keySecret: emulator.keySecret,
    budget,
    retry: { baseDelayMs: 20, maxDelayMs: 100 },
  });
  return { budget, client };
}

describe("rate limit store: one budget in Redis for every machine on the key", function () {
  this.timeout(60_000);
  const rig = storeRigEachTest();
  const { budgets } = rig;

  /** Every machine reads every service `rounds` times, all at once. */
  async function readAll(machines: { client: ApiClient }[], rounds: number) {
    await Promise.all(
      machines.flatMap(({ client }) =>
        Array.from({ length: rounds }, (_, r) =>
          client.getService(rig.organizationId, rig.ids[r % rig.ids.length]),
        ),
      ),
    );
  }

  it("four machines on one key through one store: every request goes through, none is answered 429", async () => {
    const redis = await rig.startRedis();
    const warnings: string[] = [];
    const machines = Array.from({ length: 4 }, () => machine(rig.emulator, address(redis.url), warnings));
    budgets.push(...machines.map((m) => m.budget));
    await readAll(machines, 8);
    const answered = rig.emulator.requests;
    assert.equal(answered.filter((r) => r.status === 429).length, 0, "no 429");
    assert.equal(answered.length, 32, "each request sent once");
    assert.deepEqual(warnings, []);
  });

  it("the store stopped mid-run: each machine warns once and goes on with its own budget, nothing lost", async () => {
    const redis = await rig.startRedis({ password: "store-pass-Zq81" });
    const warnings: string[] = [];
    const machines = Array.from({ length: 2 }, () => machine(rig.emulator, address(redis.url), warnings));
    budgets.push(...machines.map((m) => m.budget));
    await readAll(machines, 3);
    await redis.stop();
    await readAll(machines, 6);
    assert.equal(warnings.length, 2, warnings.join("\n"));
    for (const warning of warnings) {
      assert.match(warning, /redis:\/\/127\.0\.0\.1:\d+ failed/);
      assert.ok(!warning.includes("store-pass-Zq81"), "no password in the warning");
    }
    const answered = rig.emulator.requests.filter((r) => r.status !== 429);
    assert.equal(answered.length, 18, "every request answered");
  });

  it("a password-protected store admits with the right password; a wrong one falls back without naming either", async () => {
    const redis = await rig.startRedis({ password: "right-pass-7Hk2" });
    const warnings: string[] = [];
    const good = machine(rig.emulator, address(redis.url), warnings);
    const wrongUrl = redis.url.replace("right-pass-7Hk2", "wrong-pass-p4Vd");
    const wrong = machine(rig.emulator, address(wrongUrl), warnings);
    budgets.push(good.budget, wrong.budget);
    await readAll([good], 2);
    assert.deepEqual(warnings, []);
    const reader = createClient({ url: redis.url });
    await reader.connect();
    try {
      const prefix = storeKeyPrefix(rig.emulator.url, rig.emulator.keyId, LIMIT);
      const ttl = await reader.pTTL(`${prefix}:slots`);
      assert.ok(ttl > 0 && ttl <= 5 * LIMIT.windowMs, `the entry expires by itself (PTTL ${ttl})`);
      assert.deepEqual(await reader.keys("*secret*"), [], "no key material in a key name");
    } finally {
      await reader.close();
    }
    await readAll([wrong], 2);
    assert.equal(warnings.length, 1);
    assert.ok(!/right-pass|wrong-pass/.test(warnings[0]), warnings[0]);
  });

  it("a budget on a working store sends a fresh window's allowance without pacing; on a failed one it paces", async () => {
    const redis = await rig.startRedis();
    const prefix = storeKeyPrefix(rig.emulator.url, "key-g", LIMIT);
    const stepped = steppedClock();
    const store = new RedisBudget(address(redis.url), prefix, LIMIT, 3_000, () => undefined);
    const budget = new StoreBudget(LIMIT, stepped.clock, new MemoryLedger(), store, 0);
    budgets.push(budget);
    for (let i = 0; i < LIMIT.requests; i++) (await budget.take()).answered();
    assert.equal(stepped.now(), 0, "ten requests granted with no wait on the budget's clock");
    await redis.stop();
    assert.equal(await store.admit(Infinity, "after"), undefined, "the store is gone");
    const paced = new StoreBudget(LIMIT, stepped.clock, new MemoryLedger(), store, 0);
    budgets.push(paced);
    await paced.take(); // the store failed: this budget keeps its own, paced again
    assert.equal(paced.nextGrantAt(), LIMIT.windowMs / LIMIT.requests, "the next a pacing step later");
  });
});
