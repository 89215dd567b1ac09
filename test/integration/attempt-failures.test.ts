import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { createServer, type AddressInfo, type Server } from "node:net";
import { Agent } from "undici";
import { ApiConnectionError, ApiTimeoutError } from "../../src/api/errors";
import type { ApiClientOptions } from "../../src/api/options";
import { failureOf, serviceBody, testClient } from "../helpers/apiClient";
import { refusedUrl, startHostileServer, type HostileServer } from "../helpers/hostileServer";

/*
 * Attempts that get no answer, over real sockets on 127.0.0.1: the exact message each failure
 * reads (users read them), how the client counts and logs it, and that nothing of an attempt
 * (its deadline timer) outlives it.
 */

const ORG = randomUUID();
const SVC = randomUUID();
const PATH = `/v1/organizations/${ORG}/services/${SVC}`;
/** One attempt per call unless a test asks for more; retries wait 10 ms. */
const clientFor = (server: { url: string }, overrides: Partial<ApiClientOptions> = {}) =>
  testClient(server, { retry: { maxAttempts: 1, baseDelayMs: 10, maxDelayMs: 10 }, ...overrides });

/** A TCP server on 127.0.0.1 that answers every request with `reply` (not necessarily HTTP). */
async function rawServer(reply: string): Promise<{ url: string; server: Server }> {
  const server = createServer((socket) => {
    socket.on("error", () => undefined);
    socket.on("data", () => socket.end(reply));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** Timers that keep the process alive. */
const liveTimers = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;

describe("attempts without an answer", function () {
  this.timeout(20_000);
  let server: HostileServer | undefined;
  let raw: Server | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
    raw?.close();
    raw = undefined;
  });

  it("a refused connection reads: Connection failed (method path): code: the system's message", async () => {
    const url = await refusedUrl();
    const error = await failureOf(clientFor({ url }).getService(ORG, SVC));
    assert.ok(error instanceof ApiConnectionError, String(error));
    assert.equal(
      error.message,
      `Connection failed (GET ${PATH}): ECONNREFUSED: connect ECONNREFUSED ${new URL(url).host}`,
    );
    assert.ok(!(error instanceof ApiTimeoutError), String(error));
    assert.equal((error.cause as { code?: string }).code, "ECONNREFUSED");
  });

  it("a server that does not speak HTTP is a connection failure naming the parser's complaint, with no code", async () => {
    const target = await rawServer("garbage\r\n\r\n");
    raw = target.server;
    const error = await failureOf(clientFor(target).getService(ORG, SVC));
    assert.ok(error instanceof ApiConnectionError && !(error instanceof ApiTimeoutError), String(error));
    assert.equal(
      error.message,
      `Connection failed (GET ${PATH}): Response does not match the HTTP/1.1 protocol (Expected HTTP/, RTSP/ or ICE/)`,
    );
    assert.ok(!("code" in (error.cause as object)), "no code was invented for the cause");
  });

  it("informational (1xx) answers are passed over: the final answer is the one read", async () => {
    const body = serviceBody(SVC); // no request id in the body: the final answer's header gives it
    const target = await rawServer(
      "HTTP/1.1 103 Early Hints\r\nLink: </hint>; rel=preload\r\nX-Request-Id: req-early\r\n\r\n" +
        `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Request-Id: req-final\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    raw = target.server;
    const { service, requestId } = await clientFor(target).getService(ORG, SVC);
    assert.equal(service.id, SVC);
    assert.equal(service.state, "running");
    assert.equal(requestId, "req-final");
  });

  it("a timed-out attempt is counted and logged as a timeout, a refused one as a connection failure", async () => {
    server = await startHostileServer(() => undefined);
    const timeoutLines: string[] = [];
    const slow = clientFor(server, {
      retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 10 },
      timeouts: { totalMs: 250 },
      log: (line) => timeoutLines.push(line),
    });
    assert.ok((await failureOf(slow.getService(ORG, SVC))) instanceof ApiTimeoutError);
    assert.deepEqual(slow.stats.outcomes, { timeout: 2 });
    assert.equal(timeoutLines.length, 1);
    assert.match(timeoutLines[0], new RegExp(`^GET ${PATH}: timed out; retrying in `));

    const refusedLines: string[] = [];
    const refused = clientFor(
      { url: await refusedUrl() },
      { retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 10 }, log: (line) => refusedLines.push(line) },
    );
    await failureOf(refused.getService(ORG, SVC));
    assert.deepEqual(refused.stats.outcomes, { connection: 2 });
    assert.match(refusedLines[0], new RegExp(`^GET ${PATH}: connection failed; retrying in `));
  });

  it("an attempt cut off by the deadline after a 429 names the 429 and its request id too", async () => {
    server = await startHostileServer((_req, res, { count }) => {
      if (count > 1) return; // the retry hangs until the deadline cuts it
      res.writeHead(429, { "retry-after": "0", "x-request-id": "req-limited" });
      res.end('{"status":429,"error":"TOO_MANY_REQUESTS"}');
    });
    const client = clientFor(server, { retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 10 } });
    const error = await failureOf(client.getService(ORG, SVC, { deadline: Date.now() + 300 }));
    assert.ok(error instanceof ApiTimeoutError, String(error));
    assert.equal(server.requests.length, 2);
    assert.match(
      error.message,
      new RegExp(
        `^Timed out \\(GET ${PATH}\\): no complete answer within 0\\.\\d s; ` +
          `the last answer before it: 429 TOO_MANY_REQUESTS \\(GET ${PATH}, requestId req-limited\\)$`,
      ),
    );
  });

  it("an answered attempt leaves no timer behind: a script exits as soon as its last call ends", async () => {
    server = await startHostileServer((_req, res) => res.end(serviceBody(SVC)));
    const client = clientFor(server, { timeouts: { totalMs: 60_000 } });
    const before = liveTimers();
    await client.getService(ORG, SVC);
    assert.equal(liveTimers(), before);
  });

  it("headers that never come are a timeout, with undici's code kept on a redacted cause", async () => {
    server = await startHostileServer(() => undefined);
    const error = await failureOf(
      clientFor(server, { timeouts: { headersMs: 300, totalMs: 10_000 } }).getService(ORG, SVC),
    );
    assert.ok(error instanceof ApiTimeoutError, String(error));
    assert.match(error.message, new RegExp(`^Timed out \\(GET ${PATH}\\): UND_ERR_HEADERS_TIMEOUT: `));
    assert.equal((error.cause as { code?: string }).code, "UND_ERR_HEADERS_TIMEOUT");
    assert.equal(error.status, undefined);
  });

  it("a whole attempt past its total deadline says how long it had", async () => {
    server = await startHostileServer(() => undefined);
    const error = await failureOf(clientFor(server, { timeouts: { totalMs: 250 } }).getService(ORG, SVC));
    assert.ok(error instanceof ApiTimeoutError, String(error));
    assert.equal(error.message, `Timed out (GET ${PATH}): no complete answer within 0.3 s`);
  });

  it("a total time past what Node's timers hold is held at the longest timer, not ended at once", async () => {
    server = await startHostileServer((_req, res) => setTimeout(() => res.end(serviceBody(SVC)), 50));
    const client = clientFor(server, { timeouts: { totalMs: 2 ** 32 } });
    assert.equal((await client.getService(ORG, SVC)).service.id, SVC);
  });

  it("an attempt out of time closes its connection, with the headers or the body still to come", async () => {
    for (const sendHeaders of [false, true]) {
      let closed!: () => void;
      const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
      server = await startHostileServer((_req, res, { write }) => {
        res.on("close", closed);
        if (!sendHeaders) return;
        res.writeHead(200, { "content-type": "application/json" });
        const timer = setInterval(() => write(" "), 50);
        res.on("close", () => clearInterval(timer));
      });
      const error = await failureOf(clientFor(server, { timeouts: { totalMs: 200 } }).getService(ORG, SVC));
      assert.ok(error instanceof ApiTimeoutError, String(error));
      // Left open, the request would wait 30 s for headers, or read the trickle for good.
      await connectionClosed;
      await server.close();
    }
  });

  it("an attempt out of time while it waits for a connection fails then, and is never sent", async () => {
    // One connection to a server that never answers: the first call holds it, the second queues.
    server = await startHostileServer(() => undefined);
    const dispatcher = new Agent({ connections: 1 });
    try {
      const settled: string[] = [];
      const first = failureOf(
        clientFor(server, { dispatcher, timeouts: { totalMs: 1_500 } }).getService(ORG, SVC),
      ).finally(() => settled.push("first"));
      while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      const queued = await failureOf(
        clientFor(server, { dispatcher, timeouts: { totalMs: 100 } }).getService(ORG, SVC),
      ).finally(() => settled.push("queued"));
      assert.ok(queued instanceof ApiTimeoutError, String(queued));
      assert.equal(queued.message, `Timed out (GET ${PATH}): no complete answer within 0.1 s`);
      await first;
      // It failed while the first call still held the connection, and it was not sent after.
      assert.deepEqual(settled, ["queued", "first"]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(server.requests.length, 1);
    } finally {
      await dispatcher.close();
    }
  });

  it("a PATCH out of time in the connection queue uses up no command and is not possibly applied; one sent is", async () => {
    server = await startHostileServer(() => undefined);
    const dispatcher = new Agent({ connections: 1 });
    try {
      const holder = failureOf(
        clientFor(server, { dispatcher, timeouts: { totalMs: 1_500 } }).getService(ORG, SVC),
      );
      while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      const applyBudget = { used: 0, max: 3 };
      const patch = (totalMs: number) =>
        failureOf(
          clientFor(server!, { dispatcher, timeouts: { totalMs } }).changeServiceState(ORG, SVC, "start", {
            applyBudget,
          }),
        );
      const queued = await patch(100);
      assert.ok(queued instanceof ApiTimeoutError, String(queued));
      assert.equal(queued.possiblyApplied, false);
      assert.equal(applyBudget.used, 0);
      await holder;
      const sent = await patch(300);
      assert.ok(sent instanceof ApiTimeoutError, String(sent));
      assert.equal(sent.possiblyApplied, true);
      assert.equal(applyBudget.used, 1);
      assert.deepEqual(
        server.requests.map((r) => r.method),
        ["GET", "PATCH"],
      );
    } finally {
      await dispatcher.close();
    }
  });

  it("a PATCH whose connection is refused was never sent: no command used, not possibly applied", async () => {
    const applyBudget = { used: 0, max: 3 };
    const error = await failureOf(
      clientFor({ url: await refusedUrl() }).changeServiceState(ORG, SVC, "stop", { applyBudget }),
    );
    assert.ok(error instanceof ApiConnectionError, String(error));
    assert.equal(error.possiblyApplied, false);
    assert.equal(applyBudget.used, 0);
  });
});
