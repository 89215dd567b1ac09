import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { createClient } from "@redis/client";
import { ApiClient } from "../../src/api/client";
import { systemClock } from "../../src/api/clock";
import { MemoryLedger } from "../../src/api/ledger";
import { RedisBudget } from "../../src/api/redisBudget";
import { parseStoreAddress, storeKeyPrefix, type StoreAddress } from "../../src/api/storeAddress";
import { StoreBudget, storeBudget } from "../../src/api/storeBudget";
import { startEmulator, type Emulator } from "../../src/emulator";
import { steppedClock } from "../helpers/steppedClock";
import { REDIS_SKIP_LINE, redisInstalled, startRedis, type RedisServer } from "../helpers/redisServer";

/*
 * The shared budget store on a real redis-server: budgets that share nothing but the key and the
 * store (each a "machine": its own budget and ledger) against the emulator's rate limit. Each
 * assertion counts requests, 429s, warnings and store entries; none times anything.
 */

const LIMIT = { requests: 10, windowMs: 1_000 };
/** A store's window of one request: each slot a second after the last, so that tests read simply. */
const ONE_A_SECOND = { requests: 1, windowMs: 1_000 };

function address(url: string): StoreAddress {
  const parsed = parseStoreAddress(url);
  if ("problems" in parsed) throw new Error(parsed.problems.join("; "));
  return parsed;
}

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
  let redis: RedisServer | undefined;
  let emulator: Emulator | undefined;
  const budgets: StoreBudget[] = [];
  const organizationId = randomUUID();
  const ids = Array.from({ length: 4 }, () => randomUUID());

  before(function () {
    if (!redisInstalled()) {
      console.log(`    ${REDIS_SKIP_LINE}`);
      this.skip();
    }
  });

  beforeEach(async () => {
    emulator = await startEmulator({
      rateLimit: LIMIT,
      services: ids.map((id, i) => ({ organizationId, id, name: `store-${i}`, state: "running" })),
    });
  });

  afterEach(async () => {
    await Promise.all(budgets.splice(0).map((budget) => budget.closeStore()));
    await emulator?.close();
    await redis?.stop();
    redis = undefined;
  });

  /** Every machine reads every service `rounds` times, all at once. */
  async function readAll(machines: { client: ApiClient }[], rounds: number) {
    await Promise.all(
      machines.flatMap(({ client }) =>
        Array.from({ length: rounds }, (_, r) => client.getService(organizationId, ids[r % ids.length])),
      ),
    );
  }

  it("four machines on one key through one store: every request goes through, none is answered 429", async () => {
    redis = await startRedis();
    const warnings: string[] = [];
    const machines = Array.from({ length: 4 }, () => machine(emulator!, address(redis!.url), warnings));
    budgets.push(...machines.map((m) => m.budget));
    await readAll(machines, 8);
    const answered = emulator!.requests;
    assert.equal(answered.filter((r) => r.status === 429).length, 0, "no 429");
    assert.equal(answered.length, 32, "each request sent once");
    assert.deepEqual(warnings, []);
  });

  it("the store stopped mid-run: each machine warns once and goes on with its own budget, nothing lost", async () => {
    redis = await startRedis({ password: "store-pass-Zq81" });
    const warnings: string[] = [];
    const machines = Array.from({ length: 2 }, () => machine(emulator!, address(redis!.url), warnings));
    budgets.push(...machines.map((m) => m.budget));
    await readAll(machines, 3);
    await redis.stop();
    await readAll(machines, 6);
    assert.equal(warnings.length, 2, warnings.join("\n"));
    for (const warning of warnings) {
      assert.match(warning, /redis:\/\/127\.0\.0\.1:\d+ failed/);
      assert.ok(!warning.includes("store-pass-Zq81"), "no password in the warning");
    }
    const answered = emulator!.requests.filter((r) => r.status !== 429);
    assert.equal(answered.length, 18, "every request answered");
  });

  it("a password-protected store admits with the right password; a wrong one falls back without naming either", async () => {
    redis = await startRedis({ password: "right-pass-7Hk2" });
    const warnings: string[] = [];
    const good = machine(emulator!, address(redis.url), warnings);
    const wrongUrl = redis.url.replace("right-pass-7Hk2", "wrong-pass-p4Vd");
    const wrong = machine(emulator!, address(wrongUrl), warnings);
    budgets.push(good.budget, wrong.budget);
    await readAll([good], 2);
    assert.deepEqual(warnings, []);
    const reader = createClient({ url: redis.url });
    await reader.connect();
    try {
      const prefix = storeKeyPrefix(emulator!.url, emulator!.keyId, LIMIT);
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

  it("a free slot goes to the poll that ranks first across machines, not the one that asked first", async () => {
    redis = await startRedis();
    const store = address(redis.url);
    const prefix = storeKeyPrefix(emulator!.url, "key-d", LIMIT);
    const [young, old] = [0, 1].map(
      () => new RedisBudget(store, prefix, ONE_A_SECOND, 3_000, () => undefined),
    );
    try {
      assert.equal(
        (await young.admit(Infinity, "command"))?.admitted,
        true,
        "a command holds the next second",
      );
      // Both polls find the slot taken and bid: one waited 1 s, the other 60 s.
      const first = await young.admitPoll(-1_000, "young");
      assert.equal((await old.admitPoll(-60_000, "old"))?.admitted, false);
      await new Promise((resolve) => setTimeout(resolve, first!.waitMs + 50));
      const again = await young.admitPoll(-1_000, "young");
      assert.equal(again?.admitted, false, "the younger poll asks first, and leaves the slot");
      assert.equal((await old.admitPoll(-60_000, "old"))?.admitted, true, "the older one takes it");
    } finally {
      await Promise.all([young.close(), old.close()]);
    }
  });

  it("a fresh window lets its whole allowance go at once: the next request waits for the first to leave it", async () => {
    redis = await startRedis();
    const prefix = storeKeyPrefix(emulator!.url, "key-f", LIMIT);
    const store = new RedisBudget(address(redis.url), prefix, LIMIT, 3_000, () => undefined);
    try {
      for (let i = 0; i < LIMIT.requests; i++)
        assert.deepEqual(await store.admit(Infinity, `r${i}`), { admitted: true, waitMs: 0 }, `request ${i}`);
      const next = await store.admit(Infinity, "next");
      assert.ok(next!.waitMs > 0 && next!.waitMs <= LIMIT.windowMs, `waits ${next!.waitMs} ms`);
      assert.equal((await store.admitPoll(0, "poll"))?.admitted, false, "no poll takes a reserved slot");
    } finally {
      await store.close();
    }
  });

  it("polls go a slot apart through the store, while a command in the same window still goes at once", async () => {
    redis = await startRedis();
    const prefix = storeKeyPrefix(emulator!.url, "key-p", LIMIT);
    const store = new RedisBudget(address(redis.url), prefix, LIMIT, 3_000, () => undefined);
    try {
      assert.deepEqual(await store.admitPoll(0, "p1"), { admitted: true, waitMs: 0 });
      const second = await store.admitPoll(0, "p2");
      assert.equal(second?.admitted, false, "the next poll waits for the next slot");
      assert.ok(
        second!.waitMs > 0 && second!.waitMs <= LIMIT.windowMs / LIMIT.requests,
        `${second!.waitMs} ms`,
      );
      assert.deepEqual(await store.admit(Infinity, "command"), { admitted: true, waitMs: 0 });
    } finally {
      await store.close();
    }
  });

  it("a command is not held behind its own process's polls while the store spaces them", async () => {
    redis = await startRedis();
    const limit = { requests: 4, windowMs: 2_000 };
    const prefix = storeKeyPrefix(emulator!.url, "key-q", limit);
    const other = new RedisBudget(address(redis.url), prefix, limit, 6_000, () => undefined);
    const store = new RedisBudget(address(redis.url), prefix, limit, 6_000, () => undefined);
    const budget = new StoreBudget(limit, systemClock, new MemoryLedger(), store);
    budgets.push(budget);
    try {
      // Another machine fills the fleet's window; then this process queues four polls and a command.
      for (let i = 0; i < limit.requests; i++) await other.admit(Infinity, `other-${i}`);
      const order: string[] = [];
      const hint = (ms: number) => ({ waitedMs: () => ms, unseenMs: () => ms });
      const polls = [1, 2, 3, 4].map((i) =>
        budget.take(undefined, hint(60_000 + i)).then((grant) => (order.push(`poll ${i}`), grant.answered())),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      const command = budget.take().then((grant) => (order.push("command"), grant.answered()));
      await Promise.all([...polls, command]);
      assert.ok(order.indexOf("command") < 2, `granted in this order: ${order.join(", ")}`);
    } finally {
      await other.close();
    }
  });

  it("a poll waiting out a full window keeps its bid: the longer wait still goes first when the window frees", async () => {
    redis = await startRedis();
    const limit = { requests: 4, windowMs: 2_000 };
    const prefix = storeKeyPrefix(emulator!.url, "key-r", limit);
    const store = () => new RedisBudget(address(redis!.url), prefix, limit, 6_000, () => undefined);
    const other = store();
    const [young, old] = [store(), store()].map(
      (s) => new StoreBudget(limit, systemClock, new MemoryLedger(), s),
    );
    budgets.push(young, old);
    try {
      for (let i = 0; i < limit.requests; i++) await other.admit(Infinity, `other-${i}`);
      const order: string[] = [];
      const hint = (ms: number) => ({ waitedMs: () => ms, unseenMs: () => ms });
      const youngPoll = young.take(undefined, hint(1_000)).then((g) => (order.push("young"), g.answered()));
      await new Promise((resolve) => setTimeout(resolve, 50)); // the younger asks first, and so wakes first
      const oldPoll = old.take(undefined, hint(60_000)).then((g) => (order.push("old"), g.answered()));
      await Promise.all([youngPoll, oldPoll]);
      assert.deepEqual(order, ["old", "young"]);
    } finally {
      await other.close();
    }
  });

  it("a budget on a working store sends a fresh window's allowance without pacing; on a failed one it paces", async () => {
    redis = await startRedis();
    const prefix = storeKeyPrefix(emulator!.url, "key-g", LIMIT);
    const stepped = steppedClock();
    const store = new RedisBudget(address(redis.url), prefix, LIMIT, 3_000, () => undefined);
    const budget = new StoreBudget(LIMIT, stepped.clock, new MemoryLedger(), store, 0);
    budgets.push(budget);
    for (let i = 0; i < LIMIT.requests; i++) (await budget.take()).answered();
    assert.equal(stepped.now(), 0, "ten requests granted with no wait on the budget's clock");
    await redis.stop();
    redis = undefined;
    assert.equal(await store.admit(Infinity, "after"), undefined, "the store is gone");
    const paced = new StoreBudget(LIMIT, stepped.clock, new MemoryLedger(), store, 0);
    budgets.push(paced);
    await paced.take(); // the store failed: this budget keeps its own, paced again
    assert.equal(paced.nextGrantAt(), LIMIT.windowMs / LIMIT.requests, "the next a pacing step later");
  });

  it("a send checks the window ending when it goes: a late one cannot crowd it past the limit", async () => {
    redis = await startRedis();
    const prefix = storeKeyPrefix(emulator!.url, "key-e", LIMIT);
    const store = new RedisBudget(
      address(redis.url),
      prefix,
      { requests: 2, windowMs: 60_000 },
      3_000,
      () => undefined,
    );
    try {
      assert.equal((await store.sent("first"))?.admitted, true);
      assert.equal((await store.sent("second"))?.admitted, true);
      const third = await store.sent("third");
      assert.equal(third?.admitted, false, "a third send within the window waits");
      assert.ok(third!.waitMs > 50_000, `until the first leaves the window (${third!.waitMs} ms)`);
    } finally {
      await store.close();
    }
  });

  it("two keys are kept apart, and only one of two machines takes the last free slot", async () => {
    redis = await startRedis();
    const store = address(redis.url);
    const stores = ["key-a", "key-a", "key-b", "key-c", "key-c"].map(
      (keyId) =>
        new RedisBudget(
          store,
          storeKeyPrefix(emulator!.url, keyId, LIMIT),
          ONE_A_SECOND,
          3_000,
          () => undefined,
        ),
    );
    try {
      const [a1, a2, b, c1, c2] = stores;
      for (let i = 0; i < 5; i++) assert.equal((await a1.admit(Infinity, `c${i}`))?.admitted, true);
      const polls = await Promise.all([a1.admitPoll(0, "p1"), a2.admitPoll(0, "p2")]);
      assert.equal(polls.filter((p) => p?.admitted).length, 0, "key a's next slots are reserved: no poll");
      assert.ok(
        polls.every((p) => p!.waitMs > 3_000),
        "its next free slot is about 5 s off",
      );
      assert.deepEqual(await b.admit(Infinity, "b"), { admitted: true, waitMs: 0 }, "key b is free");
      const race = await Promise.all([c1.admitPoll(0, "c1"), c2.admitPoll(0, "c2")]);
      assert.equal(
        race.filter((p) => p?.admitted).length,
        1,
        "one machine takes key c's free slot, not both",
      );
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });
});
