import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { createServer, type AddressInfo, type Server } from "node:net";
import { Agent, type Dispatcher } from "undici";
import { ApiClient } from "../../src/api/client";
import { ApiTimeoutError } from "../../src/api/errors";
import { ledgerPath } from "../../src/api/fileLedger";
import type { RateLimit } from "../../src/api/rateLimit";
import { parseStoreAddress, type StoreAddress } from "../../src/api/storeAddress";
import { closeSharedDispatchers, sharedBudget, sharedDispatcher } from "../../src/api/shared";
import { failureOf, serviceBody, TEST_KEY, testClient } from "../helpers/apiClient";
import { startHostileServer, type HostileServer } from "../helpers/hostileServer";
import { virtualClock } from "../helpers/virtualClock";

/*
 * The process-wide state every client shares: one keep-alive dispatcher per set of timeouts and
 * one rate budget per key and API. It lives on globalThis under a Symbol.for key, so that every
 * copy of the package in a process (two installed versions) finds the same one: each test here
 * starts from a process where no copy has made it yet, and puts the real one back afterwards.
 */

const SHARED_KEY = Symbol.for("pulumi-dbcloud.shared.v1");
const holder = globalThis as unknown as Record<symbol, unknown>;

const ORG = randomUUID();
const SVC = randomUUID();
const PATH = `/v1/organizations/${ORG}/services/${SVC}`;

describe("state shared by every client in a process", function () {
  this.timeout(20_000);
  let saved: unknown;
  let server: HostileServer | undefined;
  let silent: Server | undefined;

  beforeEach(async () => {
    saved = holder[SHARED_KEY];
    delete holder[SHARED_KEY];
    server = await startHostileServer((_req, res) => res.end(serviceBody(SVC)));
  });
  afterEach(async () => {
    try {
      await closeSharedDispatchers();
    } finally {
      holder[SHARED_KEY] = saved;
      await server?.close();
      silent?.close();
      silent = undefined;
    }
  });

  it("lives under Symbol.for('pulumi-dbcloud.shared.v1'), made by the first client", () => {
    testClient(server!);
    const state = holder[SHARED_KEY] as { dispatchers: Map<string, Agent>; budgets: Map<string, unknown> };
    assert.ok(state.dispatchers instanceof Map && state.budgets instanceof Map);
    assert.equal(state.dispatchers.size, 1);
  });

  it("clients with the same timeouts share one keep-alive dispatcher; other timeouts get their own", async () => {
    const same = { connectMs: 1_000, headersMs: 2_000, bodyMs: 3_000 };
    const agent = sharedDispatcher(same);
    assert.equal(sharedDispatcher({ ...same }), agent);
    const others = [{ connectMs: 1_001 }, { headersMs: 2_001 }, { bodyMs: 3_001 }].map((other) =>
      sharedDispatcher({ ...same, ...other }),
    );
    assert.equal(new Set([agent, ...others]).size, 4);
    // Clients find it too: two clients' calls go through the one dispatcher.
    await testClient(server!, { timeouts: same }).getService(ORG, SVC);
    await testClient(server!, { timeouts: same }).getService(ORG, SVC);
    assert.equal(sharedDispatcher(same), agent);
    assert.equal((holder[SHARED_KEY] as { dispatchers: Map<string, Agent> }).dispatchers.size, 4);
  });

  it("the connect timeout bounds a TLS handshake that never completes", async () => {
    // Accepts the connection and never answers the TLS hello.
    silent = createServer((socket) => socket.on("error", () => undefined));
    await new Promise<void>((resolve) => silent!.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as AddressInfo).port;
    const client = testClient(
      { url: `https://127.0.0.1:${port}` },
      { retry: { maxAttempts: 1 }, timeouts: { connectMs: 200, totalMs: 8_000 } },
    );
    const error = await failureOf(client.getService(ORG, SVC));
    assert.ok(error instanceof ApiTimeoutError, String(error));
    assert.equal(
      error.message,
      `Timed out (GET ${PATH}): UND_ERR_CONNECT_TIMEOUT: Connect Timeout Error ` +
        `(attempted address: 127.0.0.1:${port}, timeout: 200ms)`,
    );
  });

  it("a dispatcher of the caller's own carries every request instead of the shared one", async () => {
    let dispatched = 0;
    const own = new (class extends Agent {
      override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
        dispatched++;
        return super.dispatch(options, handler);
      }
    })();
    try {
      await testClient(server!, { dispatcher: own }).getService(ORG, SVC);
      assert.equal(dispatched, 1);
    } finally {
      await own.close();
    }
  });

  it("closing the shared dispatchers closes their connections; a later client opens a new one", async () => {
    const timeouts = { connectMs: 1_000, headersMs: 2_000, bodyMs: 3_000 };
    await testClient(server!, { timeouts }).getService(ORG, SVC);
    const agent = sharedDispatcher(timeouts);
    await closeSharedDispatchers();
    assert.equal(agent.closed, true);
    await testClient(server!, { timeouts }).getService(ORG, SVC);
    assert.notEqual(sharedDispatcher(timeouts), agent);
  });

  it("clients of one key at one API share a budget; another key or API has its own", async () => {
    const { clock } = virtualClock();
    const limit: RateLimit = { requests: 1, windowMs: 10_000 };
    const client = (keyId: string, url = server!.url) =>
      new ApiClient({ apiUrl: url, keyId, keySecret: TEST_KEY.keySecret, rateLimit: limit, clock });
    await client("key-a").getService(ORG, SVC);
    const sameKey = client("key-a");
    await sameKey.getService(ORG, SVC);
    assert.ok(
      sameKey.stats.budgetWaitMs > 0,
      "the second client of the key waited for the first one's window",
    );
    const otherKey = client("key-b");
    await otherKey.getService(ORG, SVC);
    assert.equal(otherKey.stats.budgetWaitMs, 0);
    assert.equal(
      sharedBudget(server!.url, "key-a", limit, clock),
      sharedBudget(server!.url, "key-a", limit, clock),
    );
    assert.notEqual(
      sharedBudget(server!.url, "key-a", limit, clock),
      sharedBudget(`${server!.url}/x`, "key-a", limit, clock),
    );
    // A client with other credentials for the same store does not ride on the first one's budget.
    const store = (url: string) => parseStoreAddress(url) as StoreAddress;
    const withStore = (url: string) => sharedBudget(server!.url, "key-a", limit, clock, store(url));
    assert.equal(withStore("redis://u:right@127.0.0.1:6379"), withStore("redis://u:right@127.0.0.1:6379"));
    assert.notEqual(withStore("redis://u:right@127.0.0.1:6379"), withStore("redis://u:wrong@127.0.0.1:6379"));
  });

  it("on the system clock the budget's grants go to the key's file for other processes; on an injected clock they do not", async () => {
    const limit: RateLimit = { requests: 5, windowMs: 60_000 };
    const injected = `ledger-${randomUUID()}`;
    const system = `ledger-${randomUUID()}`;
    const fileOf = (keyId: string) => ledgerPath(server!.url, keyId, limit);
    const client = (keyId: string, clock?: ReturnType<typeof virtualClock>["clock"]) =>
      new ApiClient({ apiUrl: server!.url, keyId, keySecret: TEST_KEY.keySecret, rateLimit: limit, clock });
    try {
      await client(injected, virtualClock().clock).getService(ORG, SVC);
      assert.equal(existsSync(fileOf(injected)), false, "an injected clock keeps its grants in memory");
      await client(system).getService(ORG, SVC);
      const ledger = JSON.parse(readFileSync(fileOf(system), "utf8")) as { grants: number[] };
      assert.equal(ledger.grants.length, 1);
    } finally {
      for (const keyId of [injected, system]) rmSync(fileOf(keyId), { force: true });
    }
  });
});
