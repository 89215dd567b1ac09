import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { ApiTimeoutError, RateLimitError, ResponseValidationError } from "../../src/api/errors";
import { RateBudget } from "../../src/api/rateBudget";
import { MAX_BODY_BYTES } from "../../src/api/transport";
import type { ApiClientOptions } from "../../src/api/options";
import * as provider from "../../src/provider";
import { failureOf, serviceBody, testClient } from "../helpers/apiClient";
import {
  configureProviderFor,
  startHostileServer,
  streamBytes,
  type HostileServer,
} from "../helpers/hostileServer";

/*
 * Everything ends in bounded time and memory, against servers that misbehave on purpose:
 * silence, trickles, huge bodies, 429 storms and waits of a day.
 */

const ORG = randomUUID();
const SVC = randomUUID();
const SERVICE_BODY = serviceBody(SVC, "r-1");

/** Retries here wait 20 to 50 ms. */
const clientFor = (server: HostileServer, overrides: Partial<ApiClientOptions> = {}) =>
  testClient(server, { retry: { baseDelayMs: 20, maxDelayMs: 50 }, ...overrides });

describe("bounded time: a call ends by its deadline, whatever the server does", function () {
  this.timeout(20_000);
  let server: HostileServer | undefined;
  afterEach(async () => server?.close());

  it("a server that never sends headers cannot hold a call past its deadline", async () => {
    server = await startHostileServer(() => undefined);
    const client = clientFor(server);
    const error = await failureOf(client.getService(ORG, SVC, { deadline: Date.now() + 1_500 }));
    assert.ok(error instanceof ApiTimeoutError, String(error));
    // The attempt's own limit was what the deadline left (the headers timeout is 30 s), and no retry followed.
    assert.match(error.message, /\): no complete answer within 1\.\d s$/);
    assert.equal(server.requests.length, 1);
  });

  it("a body trickled one byte at a time is cut by the attempt's total deadline", async () => {
    server = await startHostileServer((_req, res, { write }) => {
      res.writeHead(200, { "content-type": "application/json" });
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : write(" ")), 100);
      res.on("close", () => clearInterval(timer));
    });
    const client = clientFor(server, { timeouts: { totalMs: 800 }, retry: { maxAttempts: 1 } });
    const error = await failureOf(client.getService(ORG, SVC));
    assert.ok(error instanceof ApiTimeoutError, String(error));
    // The attempt's total limit, not the body-idle timeout (which a trickle never trips), ended it.
    assert.match(error.message, /no complete answer within 0\.8 s/);
  });

  it("create with timeoutSeconds 2 against a silent server fails within its timeout", async () => {
    server = await startHostileServer(() => undefined);
    await configureProviderFor(server);
    const error = await failureOf(
      provider.serviceRunStateCreate({
        organizationId: ORG,
        serviceId: SVC,
        state: "running",
        timeoutSeconds: 2,
      }),
    );
    // What ended it: the read's own limit was what the timeout left (the headers timeout is
    // 30 s), and no retry followed it.
    assert.match(error.message, /\): no complete answer within [12]\.\d s$/);
    assert.equal(server.requests.length, 1);
  });

  it("a rate-budget slot past the deadline fails at once, sending nothing", async () => {
    server = await startHostileServer((_req, res) => res.end(SERVICE_BODY));
    const budget = new RateBudget(
      { requests: 1, windowMs: 60_000 },
      { now: Date.now, sleep: async () => undefined },
    );
    const client = clientFor(server, { budget });
    await client.getService(ORG, SVC);
    const error = await failureOf(client.getService(ORG, SVC, { deadline: Date.now() + 2_000 }));
    assert.ok(error instanceof ApiTimeoutError, String(error));
    assert.match(error.message, /^Timed out \(GET [^)]+\): .*rate budget has no slot before the deadline/);
    assert.equal(server.requests.length, 1);
  });

  it("a 429 asking for a day is not slept on past the deadline", async () => {
    server = await startHostileServer((_req, res) => {
      res.writeHead(429, { "retry-after": "86400" });
      res.end('{"status":429,"error":"TOO_MANY_REQUESTS"}');
    });
    const error = await failureOf(clientFor(server).getService(ORG, SVC, { deadline: Date.now() + 2_000 }));
    // Given up at once with the 429 itself: a sleep to the deadline would have ended in a timeout.
    assert.ok(error instanceof RateLimitError, String(error));
    assert.equal(server.requests.length, 1);
  });

  it("429 means wait your turn: retried past the attempt cap while the deadline has room", async () => {
    server = await startHostileServer((_req, res, { count }) => {
      if (count <= 11) {
        res.writeHead(429, { "x-ratelimit-reset": "0" });
        return res.end('{"status":429,"error":"TOO_MANY_REQUESTS"}');
      }
      res.end(SERVICE_BODY);
    });
    const client = clientFor(server);
    const result = await client.getService(ORG, SVC, { deadline: Date.now() + 10_000 });
    assert.equal(result.service.state, "running");
    assert.equal(server.requests.length, 12, "eleven 429s then the answer: more than maxAttempts (8)");
  });

  it("a 5xx storm still stops at maxAttempts", async () => {
    server = await startHostileServer((_req, res) => {
      res.statusCode = 503;
      res.end('{"status":503,"error":"busy"}');
    });
    await assert.rejects(clientFor(server).getService(ORG, SVC, { deadline: Date.now() + 10_000 }));
    assert.equal(server.requests.length, 8);
  });
});

describe("bounded memory: bodies are read with a cap", function () {
  this.timeout(30_000);
  let server: HostileServer | undefined;
  afterEach(async () => server?.close());

  it("a 100 MB answer is cut at the cap, not buffered", async () => {
    server = await startHostileServer((_req, res, { write }) => {
      res.writeHead(200, { "content-type": "application/json" });
      streamBytes(res, write, 100 * 1024 * 1024);
    });
    const error = await failureOf(clientFor(server).getService(ORG, SVC));
    assert.ok(error instanceof ResponseValidationError, String(error));
    assert.match(error.message, new RegExp(`larger than ${MAX_BODY_BYTES} bytes`));
    // The client stopped reading and closed the connection: a while later, the server still
    // could not push the rest of the body into the socket.
    // What the server gets written is its socket buffers (about 4 MB here); a client reading on
    // takes in some 30 MB in that second.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.ok(server.bytesWritten() < 10 * 1024 * 1024, `server wrote ${server.bytesWritten()} bytes`);
  });

  it("a huge error page retried is read up to the cap each time, and its message truncated", async () => {
    server = await startHostileServer((_req, res, { write }) => {
      res.writeHead(503, { "content-type": "text/html" });
      streamBytes(res, write, 30 * 1024 * 1024, "e");
    });
    const client = clientFor(server, { retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 10 } });
    const error = (await failureOf(client.getService(ORG, SVC))) as Error & { serverMessage?: string };
    assert.equal(server.requests.length, 3);
    assert.ok(server.bytesWritten() < 3 * 20 * 1024 * 1024, `server wrote ${server.bytesWritten()} bytes`);
    assert.ok(error.serverMessage!.length < 600);
  });
});

describe("one key, one budget: every client of the key in the process shares it", function () {
  this.timeout(20_000);
  let server: HostileServer | undefined;
  afterEach(async () => server?.close());

  it("a 429 seen by one caller pauses the others until the server's reset", async () => {
    const arrivals: number[] = [];
    server = await startHostileServer((_req, res, { count }) => {
      arrivals.push(Date.now());
      if (count === 1) {
        res.writeHead(429, { "retry-after": "1" });
        return res.end('{"status":429,"error":"TOO_MANY_REQUESTS"}');
      }
      res.end(SERVICE_BODY);
    });
    // Two clients (as two resources would have), one key: the shared budget is theirs.
    const first = clientFor(server, { rateLimit: { requests: 100, windowMs: 1_000 } });
    const second = clientFor(server, { rateLimit: { requests: 100, windowMs: 1_000 } });
    const started = Date.now();
    const a = first.getService(ORG, SVC, { deadline: started + 10_000 });
    while (arrivals.length < 1) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 50)); // the 429 has been read by now
    await Promise.all([a, second.getService(ORG, SVC, { deadline: started + 10_000 })]);
    assert.equal(arrivals.length, 3);
    for (const at of arrivals.slice(1))
      assert.ok(at - started >= 950, `a request went out ${at - started} ms in`);
  });

  it("several clients of one key never exceed its budget together", async () => {
    const arrivals: number[] = [];
    server = await startHostileServer((_req, res) => {
      arrivals.push(Date.now());
      res.end(SERVICE_BODY);
    });
    const limit = { requests: 3, windowMs: 500 };
    const clients = [1, 2, 3].map(() => clientFor(server!, { rateLimit: limit }));
    await Promise.all(clients.flatMap((client) => [1, 2, 3].map(() => client.getService(ORG, SVC))));
    assert.equal(arrivals.length, 9);
    arrivals.sort((x, y) => x - y);
    for (let i = 3; i < arrivals.length; i++) {
      assert.ok(
        arrivals[i] - arrivals[i - 3] >= 500,
        `4 requests within ${arrivals[i] - arrivals[i - 3]} ms`,
      );
    }
  });
});
