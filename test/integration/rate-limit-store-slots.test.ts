import assert from "node:assert/strict";
import { systemClock } from "../../src/api/clock";
import { MemoryLedger } from "../../src/api/ledger";
import { RedisBudget } from "../../src/api/redisBudget";
import { storeKeyPrefix } from "../../src/api/storeAddress";
import { StoreBudget } from "../../src/api/storeBudget";
import { address, LIMIT, ONE_A_SECOND, storeRigEachTest } from "../helpers/storeRig";

/*
 * The shared budget store's slots on a real redis-server: which poll takes a free slot across
 * machines, a fresh window's allowance, polls a slot apart, commands not held behind polls, bids
 * kept through a full window, a late send and keys kept apart. Each assertion reads what the
 * store answered; none times anything.
 */

describe("rate limit store: one budget in Redis for every machine on the key", function () {
  this.timeout(60_000);
  const rig = storeRigEachTest();
  const { budgets } = rig;

  it("a free slot goes to the poll that ranks first across machines, not the one that asked first", async () => {
    const redis = await rig.startRedis();
    const store = address(redis.url);
    const prefix = storeKeyPrefix(rig.emulator.url, "key-d", LIMIT);
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
    const redis = await rig.startRedis();
    const prefix = storeKeyPrefix(rig.emulator.url, "key-f", LIMIT);
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
    const redis = await rig.startRedis();
    const prefix = storeKeyPrefix(rig.emulator.url, "key-p", LIMIT);
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
    const redis = await rig.startRedis();
    const limit = { requests: 4, windowMs: 2_000 };
    const prefix = storeKeyPrefix(rig.emulator.url, "key-q", limit);
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
    const redis = await rig.startRedis();
    const limit = { requests: 4, windowMs: 2_000 };
    const prefix = storeKeyPrefix(rig.emulator.url, "key-r", limit);
    const store = () => new RedisBudget(address(redis.url), prefix, limit, 6_000, () => undefined);
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

  it("a send checks the window ending when it goes: a late one cannot crowd it past the limit", async () => {
    const redis = await rig.startRedis();
    const prefix = storeKeyPrefix(rig.emulator.url, "key-e", LIMIT);
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
    const redis = await rig.startRedis();
    const store = address(redis.url);
    const stores = ["key-a", "key-a", "key-b", "key-c", "key-c"].map(
      (keyId) =>
        new RedisBudget(
          store,
          storeKeyPrefix(rig.emulator.url, keyId, LIMIT),
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
