import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { ApiClient } from "../../src/api/client";
import { ApiTimeoutError, ServerError } from "../../src/api/errors";
import { RateBudget } from "../../src/api/rateBudget";
import { systemClock } from "../../src/api/clock";
import { serviceBody, TEST_KEY } from "../helpers/apiClient";
import { startHostileServer, type HostileServer } from "../helpers/hostileServer";
import { idleClock } from "../helpers/idleClock";
import { virtualClock } from "../helpers/virtualClock";

/*
 * The rate limit is the process's, not one call's: a 429 pauses every request for the key, the
 * budget is shared by every client of one key and API URL, and no retry is scheduled past the
 * caller's deadline. Each test here failed (or hung) with that behaviour removed by hand.
 */

const ORG = randomUUID();
const SVC = randomUUID();
const SERVICE_BODY = serviceBody(SVC, "r-1");

/** A server that records when each request arrived (by `now`) and answers with `answer(count)`. */
async function recordingServer(
  answer: (count: number) => { status: number; headers?: Record<string, string> },
  now: () => number = Date.now,
) {
  const arrivals: number[] = [];
  const server = await startHostileServer((_req, res, { count }) => {
    arrivals.push(now());
    const { status, headers } = answer(count);
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(status === 200 ? SERVICE_BODY : JSON.stringify({ status, error: "slow down" }));
  });
  return { server, arrivals };
}

function client(server: HostileServer, options: Partial<ConstructorParameters<typeof ApiClient>[0]> = {}) {
  return new ApiClient({
    apiUrl: server.url,
    ...TEST_KEY,
    retry: { baseDelayMs: 20, maxDelayMs: 50 },
    ...options,
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether any of `clients` has a request out that is not answered yet. */
const inFlight = (clients: ApiClient[]) => () =>
  clients.some(({ stats }) => stats.attempts > Object.values(stats.outcomes).reduce((sum, n) => sum + n, 0));

/** Runs `work` on `virtual`, moving its time only while no request is out, until it ends. */
async function onIdleClock<T>(virtual: ReturnType<typeof idleClock>, clients: ApiClient[], work: Promise<T>) {
  let done = false;
  const ended = work.finally(() => (done = true));
  await virtual.runUntil(() => done, inFlight(clients));
  return ended;
}

describe("rate limit: one budget and one pause per key, for the whole process", function () {
  this.timeout(20_000);
  let server: HostileServer | undefined;
  afterEach(async () => server?.close());

  it("after a 429, another client's new request on the same budget waits for the server's reset", async () => {
    const recorded = await recordingServer((count) =>
      count === 1 ? { status: 429, headers: { "retry-after": "1" } } : { status: 200 },
    );
    server = recorded.server;
    const budget = new RateBudget({ requests: 100, windowMs: 1_000 }, systemClock);
    const first = client(server, { budget }).getService(ORG, SVC);
    while (recorded.arrivals.length < 1) await sleep(10);
    await sleep(200); // the 429 has been answered and read: the budget is paused
    const second = await client(server, { budget }).getService(ORG, SVC);
    assert.equal(second.service.state, "running");
    await first;
    const [rateLimitedAt, ...later] = recorded.arrivals;
    assert.equal(later.length, 2, "the retry and the other client's request");
    for (const at of later) {
      assert.ok(
        at - rateLimitedAt >= 900,
        `a request reached the server ${at - rateLimitedAt} ms after the 429`,
      );
    }
  });

  it("two clients of the same key and URL share one budget: together they stay within its limit", async () => {
    // The budget's clock: time moves only while no request is out, so arrivals read exactly.
    const virtual = idleClock(0);
    const recorded = await recordingServer(() => ({ status: 200 }), virtual.now);
    server = recorded.server;
    const rateLimit = { requests: 2, windowMs: 1_000 };
    const a = client(server, { rateLimit, clock: virtual.clock });
    const b = client(server, { rateLimit, clock: virtual.clock });
    await onIdleClock(
      virtual,
      [a, b],
      Promise.all([
        a.getService(ORG, SVC),
        a.getService(ORG, SVC),
        b.getService(ORG, SVC),
        b.getService(ORG, SVC),
      ]),
    );
    const offsets = [...recorded.arrivals].sort((x, y) => x - y);
    assert.equal(offsets.length, 4);
    // On the budget's clock: the first two within the first window, the next two after it.
    assert.ok(offsets[1] < 1_000, `the first two went out in the first window: ${offsets}`);
    assert.ok(offsets[2] >= 1_000, `the third waited for the window (plus margin): ${offsets}`);
  });

  it("another key, or the same key with another limit, has a budget of its own", async () => {
    const recorded = await recordingServer(() => ({ status: 200 }));
    server = recorded.server;
    const virtual = idleClock(0);
    const rateLimit = { requests: 1, windowMs: 5_000 };
    const clients = [
      client(server, { rateLimit, clock: virtual.clock }),
      client(server, { rateLimit, clock: virtual.clock, keyId: "other-key-id" }),
      client(server, { rateLimit: { requests: 1, windowMs: 4_000 }, clock: virtual.clock }),
    ];
    await onIdleClock(
      virtual,
      clients,
      (async () => {
        for (const each of clients) await each.getService(ORG, SVC);
      })(),
    );
    // A budget shared with the first client would have held the others a window on its clock.
    assert.deepEqual(
      clients.map(({ stats }) => stats.budgetWaitMs),
      [0, 0, 0],
      "no budget wait",
    );
    assert.equal(recorded.arrivals.length, 3);
  });

  it("a 5xx whose named wait would pass the deadline is not retried: it fails at once", async () => {
    const recorded = await recordingServer(() => ({ status: 503, headers: { "retry-after": "30" } }));
    server = recorded.server;
    const virtual = virtualClock();
    await assert.rejects(
      client(server, { rateLimit: false, clock: virtual.clock }).getService(ORG, SVC, {
        deadline: virtual.now() + 2_000,
      }),
      ServerError,
    );
    // At once: the client slept nothing on its clock (a wait toward the deadline would show here).
    assert.deepEqual(virtual.sleeps, [], "no sleep before failing");
    assert.equal(recorded.arrivals.length, 1);
  });

  it("a backoff that would pass the deadline is not slept: the last answer is the error", async () => {
    const recorded = await recordingServer(() => ({ status: 503 }));
    server = recorded.server;
    const virtual = virtualClock();
    const slow = client(server, {
      rateLimit: false,
      retry: { baseDelayMs: 5_000, maxDelayMs: 5_000 },
      random: () => 0.99,
      clock: virtual.clock,
    });
    const error = await slow
      .getService(ORG, SVC, { deadline: virtual.now() + 1_500 })
      .catch((e: unknown) => e);
    assert.ok(error instanceof ServerError && !(error instanceof ApiTimeoutError), String(error));
    assert.deepEqual(virtual.sleeps, [], "the backoff was not slept");
    assert.equal(recorded.arrivals.length, 1);
  });
});
