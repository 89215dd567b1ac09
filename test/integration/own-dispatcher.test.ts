import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { Agent, Dispatcher } from "undici";
import {
  ApiConnectionError,
  ApiTimeoutError,
  ResponseValidationError,
  ServerError,
} from "../../src/api/errors";
import type { ApiClientOptions } from "../../src/api/options";
import { MAX_BODY_BYTES } from "../../src/api/transport";
import { failureOf, serviceBody, testClient } from "../helpers/apiClient";
import { refusedUrl, startHostileServer, streamBytes, type HostileServer } from "../helpers/hostileServer";

const ORG = randomUUID();
const SVC = randomUUID();
const PATH = `/v1/organizations/${ORG}/services/${SVC}`;
/** One attempt per call. */
const clientFor = (server: { url: string }, overrides: Partial<ApiClientOptions> = {}) =>
  testClient(server, { retry: { maxAttempts: 1 }, ...overrides });

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
    const refused = await failureOf(
      clientFor(
        { url: await refusedUrl() },
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
