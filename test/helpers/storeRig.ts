import { randomUUID } from "node:crypto";
import { parseStoreAddress, type StoreAddress } from "../../src/api/storeAddress";
import type { StoreBudget } from "../../src/api/storeBudget";
import { startEmulator, type Emulator } from "../../src/emulator";
import { REDIS_SKIP_LINE, redisInstalled, startRedis, type RedisServer } from "./redisServer";

/*
 * The shared budget store's tests: a real redis-server each test starts (skipped, saying so,
 * where none is installed), an emulator with a rate limit and four services, and the budgets a
 * test made, all closed after each test.
 */

export const LIMIT = { requests: 10, windowMs: 1_000 };
/** A store's window of one request: each slot a second after the last, so that tests read simply. */
export const ONE_A_SECOND = { requests: 1, windowMs: 1_000 };

/** The store address of `url`, which must parse. */
export function address(url: string): StoreAddress {
  const parsed = parseStoreAddress(url);
  if ("problems" in parsed) throw new Error(parsed.problems.join("; "));
  return parsed;
}

export interface StoreRig {
  emulator: Emulator;
  organizationId: string;
  /** The emulator's services, running. */
  ids: string[];
  /** Budgets whose store connection closes after the test. */
  budgets: StoreBudget[];
  /** A redis-server for this test, stopped after it. */
  startRedis(options?: { password?: string }): Promise<RedisServer>;
}

/** A StoreRig for the calling `describe`, renewed for each test. */
export function storeRigEachTest(): StoreRig {
  const servers: RedisServer[] = [];
  const organizationId = randomUUID();
  const ids = Array.from({ length: 4 }, () => randomUUID());
  const rig: StoreRig = {
    emulator: undefined as unknown as Emulator,
    organizationId,
    ids,
    budgets: [],
    async startRedis(options) {
      const server = await startRedis(options);
      servers.push(server);
      return server;
    },
  };
  before(function () {
    if (!redisInstalled()) {
      console.log(`    ${REDIS_SKIP_LINE}`);
      this.skip();
    }
  });
  beforeEach(async () => {
    rig.emulator = await startEmulator({
      rateLimit: LIMIT,
      services: ids.map((id, i) => ({ organizationId, id, name: `store-${i}`, state: "running" })),
    });
  });
  afterEach(async () => {
    await Promise.all(rig.budgets.splice(0).map((budget) => budget.closeStore()));
    await rig.emulator?.close();
    await Promise.all(servers.splice(0).map((server) => server.stop()));
  });
  return rig;
}
