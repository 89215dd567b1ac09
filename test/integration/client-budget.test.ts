import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { ApiClient } from "../../src/api/client";
import { systemClock } from "../../src/api/clock";
import { RateBudget } from "../../src/api/rateBudget";
import { failureOf, quickRetryClient, serviceBody } from "../helpers/apiClient";
import { scriptedServer, type HostileServer } from "../helpers/hostileServer";
import { virtualClock } from "../helpers/virtualClock";

/*
 * The client and its rate budget, over real HTTP: a caller's own budget that fails, which answers
 * pause the shared budget, the elapsed cap of 429 retries, the budget wait counted, and the
 * default limit shared by the key's clients. Waits are read on a virtual clock.
 */

const ORG = randomUUID();
const SVC = randomUUID();
const scripted = (statuses: number[]) => scriptedServer(statuses, serviceBody(SVC, "r-1"));

/** Retries here wait 10 to 20 ms. */
const clientFor = quickRetryClient;

describe("client bookkeeping", function () {
  this.timeout(20_000);
  let server: HostileServer | undefined;
  afterEach(async () => server?.close());

  /**
   * The clock time the retry after `status` ended at, the client and a shared budget on one
   * virtual clock, and the retry's own wait as short as it goes (`random` 0).
   */
  async function retryDoneAt(status: number, baseDelayMs: number): Promise<number> {
    server = await scripted([status, 200]);
    const virtual = virtualClock();
    const budget = new RateBudget({ requests: 100, windowMs: 1_000 }, virtual.clock);
    const retry = { baseDelayMs, maxDelayMs: baseDelayMs };
    await clientFor(server, { budget, clock: virtual.clock, retry, random: () => 0 }).getService(ORG, SVC);
    return virtual.now();
  }

  it("a budget of the caller's own that fails for another reason than the deadline fails the call with its error", async () => {
    server = await scripted([200]);
    const broken = new (class extends RateBudget {
      override take(): Promise<never> {
        return Promise.reject(new RangeError("budget unavailable"));
      }
    })({ requests: 1, windowMs: 1_000 }, systemClock);
    const error = await failureOf(clientFor(server, { budget: broken }).getService(ORG, SVC));
    assert.ok(error instanceof RangeError, String(error));
    assert.equal(error.message, "budget unavailable");
    assert.equal(server.requests.length, 0);
  });

  it("a 429 without a named wait still pauses the shared budget for the base delay", async () => {
    const doneAt = await retryDoneAt(429, 400);
    assert.ok(doneAt >= 400, `the retry went out ${doneAt} ms in`);
  });

  it("a 5xx does not pause the shared budget; only a 429 does", async () => {
    // A pause for the 503 would hold the retry 600 ms in the budget.
    const doneAt = await retryDoneAt(503, 600);
    assert.ok(doneAt < 400, `the retry waited ${doneAt} ms`);
  });

  it("without a deadline, 429s stop at the elapsed cap", async () => {
    server = await scripted([429]);
    const virtual = virtualClock();
    const error = await failureOf(
      clientFor(server, { clock: virtual.clock, retry: { maxElapsedMs: 200 }, random: () => 0 }).getService(
        ORG,
        SVC,
      ),
    );
    assert.match(error.message, /^429 /);
    // Every wait was on the client's clock: together they stay within the cap.
    assert.ok(virtual.sleeps.length > 0, "it retried");
    assert.ok(virtual.now() <= 200, `gave up after ${virtual.now()} ms on its clock (${virtual.sleeps})`);
    assert.equal(server.requests.length, virtual.sleeps.length + 1, "one request per wait, and the first");
  });

  it("counts the time spent waiting for the budget", async () => {
    server = await scripted([200]);
    const client = clientFor(server, { rateLimit: { requests: 1, windowMs: 300 } });
    await client.getService(ORG, SVC);
    await client.getService(ORG, SVC);
    assert.ok(client.stats.budgetWaitMs >= 250, `${client.stats.budgetWaitMs} ms`);
  });

  it("a client given no rate limit uses the default 10 per 10 s, shared with the key's other clients", async () => {
    server = await scripted([200]);
    const defaults = () =>
      new ApiClient({ apiUrl: server!.url, keyId: "default-key", keySecret: "key-secret-value" });
    for (let i = 0; i < 10; i++) await defaults().getService(ORG, SVC);
    const error = await failureOf(defaults().getService(ORG, SVC, { deadline: Date.now() + 1_000 }));
    assert.match(error.message, /rate budget has no slot before the deadline/);
    assert.equal(server.requests.length, 10);
  });
});
