import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { ApiError, ResponseValidationError, ServerError } from "../../src/api/errors";
import type { ApiClientOptions } from "../../src/api/options";
import { MAX_BODY_BYTES, MAX_REQUEST_ID_CHARS } from "../../src/api/transport";
import { failureOf, serviceBody, testClient } from "../helpers/apiClient";
import { startHostileServer, streamBytes, type HostileServer } from "../helpers/hostileServer";

/*
 * One attempt at the HTTP boundary, edge by edge: what counts as success, how big a body may
 * be, where the request id and the server's message come from, and what a request carries.
 * Attempts without an answer are in attempt-failures.test.ts.
 */

const ORG = randomUUID();
const SVC = randomUUID();
const PATH = `/v1/organizations/${ORG}/services/${SVC}`;
/** One attempt per call unless a test asks for more. */
const clientFor = (server: { url: string }, overrides: Partial<ApiClientOptions> = {}) =>
  testClient(server, { retry: { maxAttempts: 1 }, ...overrides });

function answer(status: number, body: string, headers: Record<string, string> = {}) {
  return startHostileServer((_req, res) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(body);
  });
}

/** One GET of the service from a server that answers it so: what the call returned. */
async function getAnswered(
  status: number,
  body: string,
  headers: Record<string, string> = {},
  overrides: Partial<ApiClientOptions> = {},
) {
  const server = await answer(status, body, headers);
  try {
    return await clientFor(server, overrides).getService(ORG, SVC);
  } finally {
    await server.close();
  }
}

/** The same, for an answer the call fails on: its error. */
const failureAnswered = <E = ServerError>(
  status: number,
  body: string,
  headers: Record<string, string> = {},
) => failureOf(getAnswered(status, body, headers)) as Promise<E & Error>;

describe("one attempt at the HTTP boundary", function () {
  this.timeout(20_000);
  let server: HostileServer | undefined;
  afterEach(async () => server?.close());

  it("299 is success; 300 is an error, not retried", async () => {
    assert.equal((await getAnswered(299, serviceBody(SVC, "r-299"))).requestId, "r-299");
    server = await answer(300, JSON.stringify({ status: 300, error: "moved" }));
    const error = await failureOf(clientFor(server, { retry: { maxAttempts: 3 } }).getService(ORG, SVC));
    assert.equal(error.constructor, ApiError);
    assert.equal(error.message, `300 moved (GET ${PATH})`);
    assert.equal(server.requests.length, 1);
  });

  it("a body of exactly the cap is read whole; one byte more is refused", async () => {
    const body = serviceBody(SVC, "r-cap");
    const whole = await getAnswered(200, body + " ".repeat(MAX_BODY_BYTES - body.length));
    assert.equal(whole.service.state, "running");
    const error = await failureAnswered(200, body + " ".repeat(MAX_BODY_BYTES - body.length + 1));
    assert.ok(error instanceof ResponseValidationError, String(error));
    assert.deepEqual(error.issues, [`(body): larger than ${MAX_BODY_BYTES} bytes`]);
  });

  it("a 2xx that is not JSON says so, quoting at most 80 characters", async () => {
    const error = await failureAnswered(200, `<html>${"x".repeat(100)}</html>`);
    assert.ok(error instanceof ResponseValidationError, String(error));
    assert.deepEqual(error.issues, [`(body): not JSON: "<html>${"x".repeat(74)}… (33 more characters)"`]);
    const empty = await failureAnswered<ResponseValidationError>(200, "");
    assert.deepEqual(empty.issues, ['(body): not JSON: ""']);
  });

  it("the request id comes from the body, else from X-Request-Id, cut at its cap", async () => {
    const header = { "x-request-id": "from-header" };
    assert.equal((await getAnswered(200, serviceBody(SVC, "from-body"), header)).requestId, "from-body");
    const emptyInBody = JSON.stringify({ status: 200, requestId: "", result: {} });
    assert.equal((await getAnswered(200, emptyInBody, header)).requestId, "from-header");
    assert.equal((await getAnswered(200, serviceBody(SVC))).requestId, undefined);
    const long = "r".repeat(MAX_REQUEST_ID_CHARS + 5);
    assert.equal(
      (await getAnswered(200, serviceBody(SVC, long))).requestId,
      `${"r".repeat(MAX_REQUEST_ID_CHARS)}… (5 more characters)`,
    );
  });

  it("a request id is kept as sent when it is a uuid, and redacted when it holds the secret, uuid or not", async () => {
    const id = "0b6f2f1e-3c4d-4e5f-8a9b-1c2d3e4f5a60";
    assert.equal((await getAnswered(200, serviceBody(SVC, id))).requestId, id);
    // A secret made of hex digits can hide inside a uuid; it is redacted all the same.
    assert.equal(
      (await getAnswered(200, serviceBody(SVC, id), {}, { keySecret: "1e-3c4d-4e" })).requestId,
      "0b6f2f[REDACTED]5f-8a9b-1c2d3e4f5a60",
    );
    assert.equal(
      (await getAnswered(200, serviceBody(SVC, "req authorization: Basic abc123"))).requestId,
      "req authorization: Basic [REDACTED]",
    );
  });

  it("a __proto__ key stays a field when the body is redacted first (it holds an escape)", async () => {
    // An escape in the text sends the parsed body through the redaction walk before the schema.
    const result = '{"__proto__":{"state":"running"},"name":"a\\\\b"}';
    const { service } = await getAnswered(200, `{"status":200,"result":${result}}`);
    assert.equal(service.name, "a\\b");
    assert.equal(service.state, null, "nothing inherited from a __proto__ field");
    assert.equal(Object.getPrototypeOf(service), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(service, "__proto__")?.value, { state: "running" });
  });

  it("an error's message is the envelope's, else the trimmed text, else nothing", async () => {
    const error = await failureAnswered(
      503,
      JSON.stringify({ status: 503, error: "busy now", requestId: "r-5" }),
    );
    assert.equal(error.serverMessage, "busy now");
    assert.equal(error.message, `503 busy now (GET ${PATH}, requestId r-5)`);
    assert.equal((await failureAnswered(503, "  plain text page \n")).serverMessage, "plain text page");
    const emptyError = JSON.stringify({ status: 503, error: "" });
    assert.equal((await failureAnswered(503, emptyError)).serverMessage, emptyError);
    const bare = await failureAnswered(503, "");
    assert.equal(bare.serverMessage, undefined);
    assert.equal(bare.message, `503 (GET ${PATH})`);
  });

  it("a request id that is not a string in the body is ignored for the header's", async () => {
    const body = JSON.stringify({ status: 503, error: "busy", requestId: 42 });
    assert.equal((await failureAnswered(503, body, { "x-request-id": "h-1" })).requestId, "h-1");
  });

  it("a 2xx of the wrong shape lists every problem with its path, or (root)", async () => {
    const result = { state: 5, endpoints: [{ port: "x" }], ipAccessList: [{ source: 1 }] };
    const error = await failureAnswered<ResponseValidationError>(
      200,
      JSON.stringify({ status: 200, result }),
    );
    assert.deepEqual(
      error.issues.map((issue) => issue.split(":")[0]),
      ["result.state", "result.endpoints.0.port", "result.ipAccessList.0.source"],
    );
    const root = await failureAnswered<ResponseValidationError>(200, "[1]");
    assert.match(root.issues[0], /^\(root\): /);
  });

  it("an error keeps only the allowlisted headers, by whole name, each cut at 200 characters", async () => {
    const error = await failureAnswered(503, "{}", {
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

  it("each request carries Basic auth, the User-Agent and Accept; only a PATCH carries a JSON body", async () => {
    const seen: Record<string, string | undefined>[] = [];
    server = await startHostileServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        const { authorization, accept, "user-agent": agent, "content-type": type } = req.headers;
        seen.push({ method: req.method, authorization, agent, accept, type, body });
        res.end(serviceBody(SVC));
      });
    });
    const client = clientFor(server, { keyId: "kid", keySecret: "ksecret" });
    await client.getService(ORG, SVC);
    await client.changeServiceState(ORG, SVC, "stop");
    const every = {
      authorization: `Basic ${Buffer.from("kid:ksecret").toString("base64")}`,
      agent: `pulumi-dbcloud/${(require("../../package.json") as { version: string }).version}`,
      accept: "application/json",
    };
    assert.deepEqual(seen, [
      { method: "GET", ...every, type: undefined, body: "" },
      { method: "PATCH", ...every, type: "application/json", body: '{"command":"stop"}' },
    ]);
  });
});
