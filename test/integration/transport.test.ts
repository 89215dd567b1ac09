import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import {
  ApiConnectionError,
  ApiError,
  ApiTimeoutError,
  ResponseValidationError,
  ServerError,
} from "../../src/api/errors";
import { Agent, Dispatcher } from "undici";
import type { ApiClientOptions } from "../../src/api/options";
import { MAX_BODY_BYTES, MAX_REQUEST_ID_CHARS } from "../../src/api/transport";
import { failureOf, serviceBody, testClient } from "../helpers/apiClient";
import { startHostileServer, streamBytes, type HostileServer } from "../helpers/hostileServer";

/*
 * One attempt at the HTTP boundary, edge by edge: what counts as success, how big a body may
 * be, where the request id and the server's message come from, and how a failure without an
 * answer is classified.
 */

const ORG = randomUUID();
const SVC = randomUUID();
const PATH = `/v1/organizations/${ORG}/services/${SVC}`;
/** One attempt per call unless a test asks for more. */
const clientFor = (server: { url: string }, overrides: Partial<ApiClientOptions> = {}) =>
  testClient(server, { retry: { maxAttempts: 1 }, ...overrides });

describe("one attempt at the HTTP boundary", function () {
  this.timeout(20_000);
  let server: HostileServer | undefined;
  afterEach(async () => server?.close());

  function answer(status: number, body: string, headers: Record<string, string> = {}) {
    return startHostileServer((_req, res) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(body);
    });
  }

  it("299 is success; 300 is an error, not retried", async () => {
    server = await answer(299, serviceBody(SVC, "r-299"));
    const ok = await clientFor(server).getService(ORG, SVC);
    assert.equal(ok.requestId, "r-299");
    await server.close();
    server = await answer(300, JSON.stringify({ status: 300, error: "moved" }));
    const error = await failureOf(clientFor(server, { retry: { maxAttempts: 3 } }).getService(ORG, SVC));
    assert.equal(error.constructor, ApiError);
    assert.equal(error.message, `300 moved (GET ${PATH})`);
    assert.equal(server.requests.length, 1);
  });

  it("a body of exactly the cap is read whole; one byte more is refused", async () => {
    const body = serviceBody(SVC, "r-cap");
    server = await answer(200, body + " ".repeat(MAX_BODY_BYTES - body.length));
    assert.equal((await clientFor(server).getService(ORG, SVC)).service.state, "running");
    await server.close();
    server = await answer(200, body + " ".repeat(MAX_BODY_BYTES - body.length + 1));
    const error = await failureOf(clientFor(server).getService(ORG, SVC));
    assert.ok(error instanceof ResponseValidationError, String(error));
    assert.deepEqual(error.issues, [`(body): larger than ${MAX_BODY_BYTES} bytes`]);
  });

  it("a 2xx that is not JSON says so, quoting at most 80 characters", async () => {
    server = await answer(200, `<html>${"x".repeat(100)}</html>`);
    const error = await failureOf(clientFor(server).getService(ORG, SVC));
    assert.ok(error instanceof ResponseValidationError, String(error));
    assert.deepEqual(error.issues, [`(body): not JSON: "<html>${"x".repeat(74)}… (33 more characters)"`]);
    await server.close();
    server = await answer(200, "");
    const empty = await failureOf(clientFor(server).getService(ORG, SVC));
    assert.deepEqual((empty as ResponseValidationError).issues, ['(body): not JSON: ""']);
  });

  it("the request id comes from the body, else from X-Request-Id, cut at its cap", async () => {
    server = await answer(200, serviceBody(SVC, "from-body"), { "x-request-id": "from-header" });
    assert.equal((await clientFor(server).getService(ORG, SVC)).requestId, "from-body");
    await server.close();
    server = await answer(200, JSON.stringify({ status: 200, requestId: "", result: {} }), {
      "x-request-id": "from-header",
    });
    assert.equal((await clientFor(server).getService(ORG, SVC)).requestId, "from-header");
    await server.close();
    server = await answer(200, serviceBody(SVC));
    assert.equal((await clientFor(server).getService(ORG, SVC)).requestId, undefined);
    await server.close();
    const long = "r".repeat(MAX_REQUEST_ID_CHARS + 5);
    server = await answer(200, serviceBody(SVC, long));
    assert.equal(
      (await clientFor(server).getService(ORG, SVC)).requestId,
      `${"r".repeat(MAX_REQUEST_ID_CHARS)}… (5 more characters)`,
    );
  });

  it("a request id is kept as sent when it is a uuid, and redacted when it holds the secret, uuid or not", async () => {
    const id = "0b6f2f1e-3c4d-4e5f-8a9b-1c2d3e4f5a60";
    server = await answer(200, serviceBody(SVC, id));
    assert.equal((await clientFor(server).getService(ORG, SVC)).requestId, id);
    // A secret made of hex digits can hide inside a uuid; it is redacted all the same.
    assert.equal(
      (await clientFor(server, { keySecret: "1e-3c4d-4e" }).getService(ORG, SVC)).requestId,
      "0b6f2f[REDACTED]5f-8a9b-1c2d3e4f5a60",
    );
    await server.close();
    server = await answer(200, serviceBody(SVC, "req authorization: Basic abc123"));
    assert.equal(
      (await clientFor(server).getService(ORG, SVC)).requestId,
      "req authorization: Basic [REDACTED]",
    );
  });

  it("a __proto__ key stays a field when the body is redacted first (it holds an escape)", async () => {
    // An escape in the text sends the parsed body through the redaction walk before the schema.
    const result = '{"__proto__":{"state":"running"},"name":"a\\\\b"}';
    server = await answer(200, `{"status":200,"result":${result}}`);
    const { service } = await clientFor(server).getService(ORG, SVC);
    assert.equal(service.name, "a\\b");
    assert.equal(service.state, null, "nothing inherited from a __proto__ field");
    assert.equal(Object.getPrototypeOf(service), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(service, "__proto__")?.value, { state: "running" });
  });

  it("an error's message is the envelope's, else the trimmed text, else nothing", async () => {
    server = await answer(503, JSON.stringify({ status: 503, error: "busy now", requestId: "r-5" }));
    let error = (await failureOf(clientFor(server).getService(ORG, SVC))) as ServerError;
    assert.equal(error.serverMessage, "busy now");
    assert.equal(error.message, `503 busy now (GET ${PATH}, requestId r-5)`);
    await server.close();
    server = await answer(503, "  plain text page \n");
    error = (await failureOf(clientFor(server).getService(ORG, SVC))) as ServerError;
    assert.equal(error.serverMessage, "plain text page");
    await server.close();
    server = await answer(503, JSON.stringify({ status: 503, error: "" }));
    error = (await failureOf(clientFor(server).getService(ORG, SVC))) as ServerError;
    assert.equal(error.serverMessage, JSON.stringify({ status: 503, error: "" }));
    await server.close();
    server = await answer(503, "");
    error = (await failureOf(clientFor(server).getService(ORG, SVC))) as ServerError;
    assert.equal(error.serverMessage, undefined);
    assert.equal(error.message, `503 (GET ${PATH})`);
  });

  it("a request id that is not a string in the body is ignored for the header's", async () => {
    server = await answer(503, JSON.stringify({ status: 503, error: "busy", requestId: 42 }), {
      "x-request-id": "h-1",
    });
    assert.equal(((await failureOf(clientFor(server).getService(ORG, SVC))) as ServerError).requestId, "h-1");
  });

  it("a 2xx of the wrong shape lists every problem with its path, or (root)", async () => {
    server = await answer(
      200,
      JSON.stringify({
        status: 200,
        result: { state: 5, endpoints: [{ port: "x" }], ipAccessList: [{ source: 1 }] },
      }),
    );
    const error = (await failureOf(clientFor(server).getService(ORG, SVC))) as ResponseValidationError;
    assert.deepEqual(
      error.issues.map((issue) => issue.split(":")[0]),
      ["result.state", "result.endpoints.0.port", "result.ipAccessList.0.source"],
    );
    await server.close();
    server = await answer(200, "[1]");
    const root = (await failureOf(clientFor(server).getService(ORG, SVC))) as ResponseValidationError;
    assert.match(root.issues[0], /^\(root\): /);
  });

  it("an error keeps only the allowlisted headers, by whole name, each cut at 200 characters", async () => {
    server = await answer(503, "{}", {
      "retry-after": "1",
      "x-ratelimit-reset": "9".repeat(250),
      "set-cookie": "session=1",
      "x-ratelimit-limit": "10",
      "x-ratelimit-remaining": "0",
      "x-request-id": "h-2",
      "x-request-id-secret": "near-miss",
      "last-date": "near-miss",
      server: "hostile",
    });
    const error = (await failureOf(clientFor(server).getService(ORG, SVC))) as ServerError;
    assert.deepEqual(Object.keys(error.headers).sort(), [
      "content-type",
      "date",
      "retry-after",
      "x-ratelimit-limit",
      "x-ratelimit-remaining",
      "x-ratelimit-reset",
      "x-request-id",
    ]);
    assert.equal(error.headers["x-ratelimit-reset"], `${"9".repeat(200)}… (50 more characters)`);
    assert.equal(error.headers["content-type"], "application/json");
  });

  it("a header sent twice is kept as both values joined by a comma", async () => {
    server = await startHostileServer((_req, res) => {
      res.setHeader("x-request-id", ["first", "second"]);
      res.writeHead(503, { "content-type": "application/json" });
      res.end("{}");
    });
    const error = (await failureOf(clientFor(server).getService(ORG, SVC))) as ServerError;
    assert.equal(error.requestId, "first, second");
    assert.equal(error.headers["x-request-id"], "first, second");
  });

  it("an error body past the cap is read up to exactly the cap, whatever the chunks", async () => {
    server = await startHostileServer((_req, res, { write }) => {
      res.writeHead(400, { "content-type": "text/plain" });
      // A short first chunk, so that the chunk crossing the cap also holds bytes below it.
      write("y".repeat(1000));
      streamBytes(res, write, MAX_BODY_BYTES);
    });
    const error = (await failureOf(clientFor(server).getService(ORG, SVC))) as ApiError;
    assert.equal(error.serverMessage, `${"y".repeat(500)}… (${MAX_BODY_BYTES - 500} more characters)`);
  });

  it("a GET carries no body and no content-type; a PATCH carries both", async () => {
    const seen: { method: string; type: string | undefined; body: string }[] = [];
    server = await startHostileServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        seen.push({ method: req.method ?? "", type: req.headers["content-type"], body });
        res.end(serviceBody(SVC));
      });
    });
    const client = clientFor(server);
    await client.getService(ORG, SVC);
    await client.changeServiceState(ORG, SVC, "stop");
    assert.deepEqual(seen, [
      { method: "GET", type: undefined, body: "" },
      { method: "PATCH", type: "application/json", body: '{"command":"stop"}' },
    ]);
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
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const applyBudget = { used: 0, max: 3 };
    const error = await failureOf(
      clientFor({ url: `http://127.0.0.1:${port}` }).changeServiceState(ORG, SVC, "stop", { applyBudget }),
    );
    assert.ok(error instanceof ApiConnectionError, String(error));
    assert.equal(error.possiblyApplied, false);
    assert.equal(applyBudget.used, 0);
  });

  it("a refused connection is a connection error naming the code", async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const error = await failureOf(clientFor({ url: `http://127.0.0.1:${port}` }).getService(ORG, SVC));
    assert.ok(error instanceof ApiConnectionError && !(error instanceof ApiTimeoutError), String(error));
    assert.match(error.message, new RegExp(`^Connection failed \\(GET ${PATH}\\): ECONNREFUSED: `));
    assert.equal((error.cause as { code?: string }).code, "ECONNREFUSED");
  });
});

/*
 * A dispatcher of the caller's own (`ApiClientOptions.dispatcher`) is a boundary too: one may
 * drive only undici's older handler interface, throw, or fail without an error.
 */
describe("a dispatcher of the caller's own", function () {
  this.timeout(20_000);
  let server: HostileServer | undefined;
  const agent = new Agent();
  afterEach(async () => server?.close());
  after(() => agent.close());

  /** Drives the handler the way undici 6 does: `onConnect`, `onHeaders`, `onData`, `onComplete`, `onError` only. */
  class OlderInterface extends Dispatcher {
    override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
      return agent.dispatch(options, {
        onConnect: (abort) => handler.onConnect!(abort),
        onHeaders: (status, headers, resume, text) => handler.onHeaders!(status, headers, resume, text),
        onData: (chunk) => handler.onData!(chunk),
        onComplete: (trailers) => handler.onComplete!(trailers),
        onError: (error) => handler.onError!(error),
      });
    }
  }

  /** Fails every request at once with `failure`, by throwing it or by reporting it. */
  class Failing extends Dispatcher {
    constructor(
      private readonly how: "throw" | "report",
      private readonly failure: unknown,
    ) {
      super();
    }
    override dispatch(_options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
      if (this.how === "throw") throw this.failure;
      handler.onResponseError!(undefined as never, this.failure as Error);
      return true;
    }
  }

  const liveTimers = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;

  it("one driving the older handler interface reads answers, errors and oversized bodies alike", async () => {
    const body = serviceBody(SVC);
    server = await startHostileServer((req, res) => {
      if (req.url?.endsWith("/state")) {
        res.writeHead(503, { "content-type": "application/json" });
        res.end(JSON.stringify({ status: 503, error: "busy now" }));
        return;
      }
      res.writeHead(200, { "content-type": "application/json", "x-request-id": "r-older" });
      res.end(body);
    });
    const client = clientFor(server, { dispatcher: new OlderInterface() });
    const { service, requestId } = await client.getService(ORG, SVC);
    assert.equal(service.state, "running");
    assert.equal(requestId, "r-older");
    const error = await failureOf(client.changeServiceState(ORG, SVC, "stop"));
    assert.ok(error instanceof ServerError, String(error));
    assert.equal(error.serverMessage, "busy now");
    await server.close();
    server = await answer200Big(body);
    const big = await failureOf(clientFor(server, { dispatcher: new OlderInterface() }).getService(ORG, SVC));
    assert.ok(big instanceof ResponseValidationError, String(big));
    assert.deepEqual(big.issues, [`(body): larger than ${MAX_BODY_BYTES} bytes`]);
  });

  it("through the older interface too, a refused connection fails as one and a cut body closes its connection", async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const refused = await failureOf(
      clientFor(
        { url: `http://127.0.0.1:${port}` },
        // Short: without the failure reported, the attempt would end as a timeout instead.
        { dispatcher: new OlderInterface(), timeouts: { totalMs: 2_000 } },
      ).getService(ORG, SVC),
    );
    assert.ok(
      refused instanceof ApiConnectionError && !(refused instanceof ApiTimeoutError),
      String(refused),
    );
    assert.match(refused.message, new RegExp(`^Connection failed \\(GET ${PATH}\\): ECONNREFUSED: `));
    server = await startHostileServer((_req, res, { write }) => {
      res.writeHead(200, { "content-type": "application/json" });
      streamBytes(res, write, 100 * 1024 * 1024);
    });
    const big = await failureOf(clientFor(server, { dispatcher: new OlderInterface() }).getService(ORG, SVC));
    assert.ok(big instanceof ResponseValidationError, String(big));
    // As in the 100 MB test of bounded.test.ts: about 4 MB when the client closed, 30 MB when not.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.ok(server.bytesWritten() < 10 * 1024 * 1024, `server wrote ${server.bytesWritten()} bytes`);
  });

  async function answer200Big(body: string) {
    return startHostileServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(body + " ".repeat(MAX_BODY_BYTES));
    });
  }

  it("one that throws fails the attempt as a connection failure, and leaves no timer behind", async () => {
    await new Promise((resolve) => setImmediate(resolve)); // mocha's own timer for this test is set by now
    const before = liveTimers();
    const client = testClient(
      { url: "https://api.example.com" },
      { retry: { maxAttempts: 1 }, dispatcher: new Failing("throw", new Error("no route today")) },
    );
    const error = await failureOf(client.getService(ORG, SVC));
    assert.ok(error instanceof ApiConnectionError && !(error instanceof ApiTimeoutError), String(error));
    assert.equal(error.message, `Connection failed (GET ${PATH}): no route today`);
    assert.equal(liveTimers(), before);
  });

  it("one that fails with null or undefined fails the attempt as a connection failure", async () => {
    for (const failure of [null, undefined]) {
      for (const how of ["throw", "report"] as const) {
        const client = testClient(
          { url: "https://api.example.com" },
          { retry: { maxAttempts: 1 }, dispatcher: new Failing(how, failure) },
        );
        const error = await failureOf(client.getService(ORG, SVC));
        assert.ok(error instanceof ApiConnectionError, `${how} ${failure}: ${String(error)}`);
        assert.match(error.message, new RegExp(`^Connection failed \\(GET ${PATH}\\): `));
      }
    }
  });
});
