// Injected faults over real HTTP: what the client sees, and whether the operation was applied.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { startEmulator, type Emulator, type EmulatorOptions, type Fault } from "../../src/emulator";
import { emulatorAuthorization, sendToEmulator } from "../helpers/emulatorHttp";

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface Reply {
  status: number;
  headers: Headers;
  text: string;
}

describe("emulator faults", () => {
  const organizationId = randomUUID();
  const serviceId = randomUUID();
  const servicePath = `/v1/organizations/${organizationId}/services/${serviceId}`;
  const statePath = `${servicePath}/state`;
  const endpointPath = `${servicePath}/pipesReversePrivateEndpoints/rpe-1`;
  let emulator: Emulator;

  async function start(options: EmulatorOptions = {}): Promise<void> {
    emulator = await startEmulator({
      transitions: { stopping: 5_000 },
      services: [{ organizationId, id: serviceId, reversePrivateEndpointIds: ["rpe-1"] }],
      ...options,
    });
  }
  beforeEach(() => start());
  afterEach(() => emulator.close());

  async function call(method: string, path: string, body?: unknown): Promise<Reply> {
    const response = await sendToEmulator(emulator, method, path, body);
    return { status: response.status, headers: response.headers, text: await response.text() };
  }
  const stop = () => call("PATCH", statePath, { command: "stop" });
  const get = () => call("GET", servicePath);

  it("status: answers the error envelope N times without applying, then behaves normally", async () => {
    emulator.injectFault({ route: "changeState", status: 503, times: 2 });
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const reply = await stop();
      assert.equal(reply.status, 503);
      const body = JSON.parse(reply.text);
      assert.equal(body.status, 503);
      assert.equal(typeof body.error, "string");
      assert.match(body.requestId, UUID_V4);
      assert.equal(reply.headers.get("x-request-id"), body.requestId);
      assert.equal(emulator.service(serviceId)?.state, "running");
    }
    // Other routes were never affected.
    assert.equal((await get()).status, 200);
    assert.equal((await stop()).status, 200);
    assert.equal(emulator.service(serviceId)?.state, "stopping");
    assert.deepEqual(
      emulator.requests.map((entry) => [entry.status, entry.fault]),
      [
        [503, "status 503"],
        [503, "status 503"],
        [200, undefined],
        [200, undefined],
      ],
    );
  });

  it("status 429 carries Retry-After and X-RateLimit-Reset from retryAfterSeconds", async () => {
    emulator.injectFault({ status: 429, retryAfterSeconds: 7 });
    const reply = await get();
    assert.equal(reply.status, 429);
    assert.equal(JSON.parse(reply.text).error, "TOO_MANY_REQUESTS");
    assert.equal(reply.headers.get("retry-after"), "7");
    assert.equal(reply.headers.get("x-ratelimit-reset"), "7");
    assert.equal((await get()).status, 200);
  });

  it("matches on method and route, and times Infinity lasts until clearFaults", async () => {
    emulator.injectFault({ method: "DELETE", status: 500, times: Infinity });
    for (let attempt = 0; attempt < 3; attempt += 1)
      assert.equal((await call("DELETE", endpointPath)).status, 500);
    assert.equal((await get()).status, 200);
    assert.equal(emulator.hasEndpoint(serviceId, "rpe-1"), true);
    emulator.clearFaults();
    assert.equal((await call("DELETE", endpointPath)).status, 200);
  });

  it("headers: adds response headers to an otherwise normal answer", async () => {
    emulator.injectFault({ route: "getService", headers: { "X-Debug": "yes" } });
    const reply = await get();
    assert.equal(reply.status, 200);
    assert.equal(reply.headers.get("x-debug"), "yes");
  });

  it("delay: answers normally after the delay", async () => {
    emulator.injectFault({ delayMs: 150 });
    const startedAt = Date.now();
    const reply = await get();
    assert.equal(reply.status, 200);
    assert.ok(Date.now() - startedAt >= 140, `answered after ${Date.now() - startedAt} ms`);
    assert.equal(emulator.requests[0].fault, "delay 150ms");
  });

  it("close() does not wait for a request held by a delay", async () => {
    emulator.injectFault({ delayMs: 10_000 });
    const pending = get();
    await new Promise((resolve) => setTimeout(resolve, 30));
    const startedAt = Date.now();
    await emulator.close();
    await assert.rejects(pending, TypeError);
    assert.ok(Date.now() - startedAt < 1000);
  });

  it("delay combines with a status", async () => {
    emulator.injectFault({ delayMs: 100, status: 502 });
    const startedAt = Date.now();
    assert.equal((await get()).status, 502);
    assert.ok(Date.now() - startedAt >= 90);
  });

  it("drop before: the connection closes without an answer and the operation is not applied", async () => {
    emulator.injectFault({ route: "deleteEndpoint", drop: "before" });
    await assert.rejects(call("DELETE", endpointPath), TypeError);
    assert.equal(emulator.hasEndpoint(serviceId, "rpe-1"), true);
    assert.equal(emulator.requests[0].status, "dropped");
    assert.equal(emulator.requests[0].fault, "drop before");
    assert.equal((await call("DELETE", endpointPath)).status, 200);
  });

  it("drop after: the operation is applied but the answer is lost, so a retry finds the endpoint gone", async () => {
    emulator.injectFault({ route: "deleteEndpoint", drop: "after" });
    await assert.rejects(call("DELETE", endpointPath), TypeError);
    assert.equal(emulator.hasEndpoint(serviceId, "rpe-1"), false);
    const retry = await call("DELETE", endpointPath);
    assert.equal(retry.status, 404);
    assert.equal(JSON.parse(retry.text).error, "Reverse private endpoint not found");
  });

  it("drop after on a state change: the command was applied", async () => {
    emulator.injectFault({ route: "changeState", drop: "after" });
    await assert.rejects(stop(), TypeError);
    assert.equal(emulator.service(serviceId)?.state, "stopping");
    const entry = emulator.requests[0];
    assert.equal(entry.status, "dropped");
    assert.equal(entry.stateBefore, "running");
    assert.equal(entry.stateAfter, "stopping");
  });

  it("malformed not-json: a 200 whose body does not parse", async () => {
    emulator.injectFault({ malformed: "not-json" });
    const reply = await get();
    assert.equal(reply.status, 200);
    assert.match(reply.headers.get("content-type") ?? "", /^application\/json/);
    assert.throws(() => JSON.parse(reply.text), SyntaxError);
    assert.equal((await get()).status, 200);
  });

  it("malformed wrong-shape: a 200 with JSON of the wrong shape", async () => {
    emulator.injectFault({ route: "changeState", malformed: "wrong-shape" });
    const reply = await stop();
    assert.equal(reply.status, 200);
    const body = JSON.parse(reply.text);
    assert.equal(body.status, undefined);
    assert.equal(body.result.state, 42);
    assert.equal(body.result.id, 7);
    // The server did process the command: only its answer is mangled.
    assert.equal(emulator.service(serviceId)?.state, "stopping");
  });

  it("ignoreCommand: answers 200 with the current service but the command is lost", async () => {
    emulator.injectFault({ ignoreCommand: true });
    // Not consumed by a read: it only applies to state changes.
    assert.equal((await get()).status, 200);
    const reply = await stop();
    assert.equal(reply.status, 200);
    assert.equal(JSON.parse(reply.text).result.state, "running");
    assert.equal(emulator.service(serviceId)?.state, "running");
    assert.equal(emulator.requests[1].fault, "ignoreCommand");
    assert.equal(JSON.parse((await stop()).text).result.state, "stopping");
  });

  it("probability: applies to the fraction of requests the random source picks, times being the cap", async () => {
    await emulator.close();
    // 0.9 misses a probability of 0.5, 0.1 hits it.
    const rolls = [0.9, 0.1, 0.9, 0.1, 0.1, 0.1];
    await start({ random: () => rolls.shift() ?? 0 });
    emulator.injectFault({ route: "getService", status: 500, probability: 0.5, times: 3 });
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 7; attempt += 1) statuses.push((await get()).status);
    assert.deepEqual(statuses, [200, 500, 200, 500, 500, 200, 200]);
  });

  it("probability with the default random source hits about that fraction", async () => {
    emulator.injectFault({ route: "getService", status: 500, probability: 0.5, times: Infinity });
    let failures = 0;
    for (let attempt = 0; attempt < 200; attempt += 1) if ((await get()).status === 500) failures += 1;
    // Binomial(200, 0.5): outside 60..140 is astronomically unlikely.
    assert.ok(failures > 60 && failures < 140, `${failures} of 200`);
  });

  it("faults apply in the order injected, one per request", async () => {
    emulator.injectFault({ status: 500 });
    emulator.injectFault({ status: 502 });
    assert.equal((await get()).status, 500);
    assert.equal((await get()).status, 502);
    assert.equal((await get()).status, 200);
  });

  it("faults never apply to the control surface, and come after auth and rate limit", async () => {
    emulator.injectFault({ status: 500, times: Infinity });
    const control = await fetch(`${emulator.url}/_emulator/requests`);
    assert.equal(control.status, 200);
    const unauthorized = await fetch(`${emulator.url}${servicePath}`);
    assert.equal(unauthorized.status, 401);
    emulator.setRateLimit({ requests: 1, windowMs: 60_000 });
    assert.equal((await get()).status, 500);
    assert.equal((await get()).status, 429);
  });

  it("refuses faults that do nothing or contradict themselves, naming the problem", () => {
    assert.throws(() => emulator.injectFault({}), /does nothing/);
    assert.throws(() => emulator.injectFault({ status: 500, drop: "before" }), /combines status and drop/);
    assert.throws(
      () => emulator.injectFault({ status: 200 }),
      /fault.status must be an integer from 400 to 599/,
    );
    assert.throws(() => emulator.injectFault({ drop: "sometimes" as "before" }), /fault.drop must be one of/);
    assert.throws(() => emulator.injectFault({ status: 500, times: 0 }), /fault.times/);
    assert.throws(
      () => emulator.injectFault({ ignoreCommand: true, route: "getService" }),
      /only applies to changeState/,
    );
  });

  describe("fault kinds of the fault suite", () => {
    it("stall: never sends headers and holds the socket until the client gives up", async () => {
      emulator.injectFault({ route: "getService", stall: true });
      const startedAt = Date.now();
      await assert.rejects(
        fetch(`${emulator.url}${servicePath}`, {
          headers: { authorization: emulatorAuthorization(emulator) },
          signal: AbortSignal.timeout(300),
        }),
        /abort|timeout/i,
      );
      assert.ok(Date.now() - startedAt >= 280);
      assert.equal(emulator.requests[0].status, "stalled");
      assert.equal((await get()).status, 200);
    });

    it("stall after: the command is applied and no answer ever comes; close() ends the stall", async () => {
      emulator.injectFault({ route: "changeState", stall: "after" });
      const pending = stop();
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(emulator.service(serviceId)?.state, "stopping");
      const closingAt = Date.now();
      await emulator.close();
      await assert.rejects(pending, TypeError);
      assert.ok(Date.now() - closingAt < 1000);
    });

    it("trickleMs: the body arrives one chunk per interval, whole and valid", async () => {
      emulator.injectFault({ route: "getService", trickleMs: 20, trickleBytes: 64 });
      const startedAt = Date.now();
      const reply = await get();
      const chunks = Math.ceil(Buffer.byteLength(reply.text) / 64);
      assert.ok(chunks >= 5, `${chunks} chunks`);
      assert.ok(Date.now() - startedAt >= (chunks - 1) * 20 - 10, `took ${Date.now() - startedAt} ms`);
      assert.equal(JSON.parse(reply.text).result.id, serviceId);
      assert.equal(emulator.requests[0].fault, "trickle 64B/20ms");
    });

    it("oversizeBytes: a 200 padded to N bytes, streamed, still a valid envelope", async () => {
      emulator.injectFault({ route: "getService", oversizeBytes: 3_000_000 });
      const response = await sendToEmulator(emulator, "GET", servicePath);
      assert.equal(response.headers.get("content-length"), "3000000");
      const text = await response.text();
      assert.equal(Buffer.byteLength(text), 3_000_000);
      const body = JSON.parse(text);
      assert.equal(body.result.id, serviceId);
      assert.equal(body.requestId, response.headers.get("x-request-id"));
    });

    it("oversizeBytes on an error: the error envelope padded, read here as a stream without keeping it", async () => {
      emulator.injectFault({ status: 503, oversizeBytes: 64 * 1024 * 1024 });
      const response = await sendToEmulator(emulator, "GET", servicePath);
      assert.equal(response.status, 503);
      let bytes = 0;
      let head = "";
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
        if (head.length < 200) head += Buffer.from(chunk).toString("utf8", 0, 200);
        bytes += chunk.length;
      }
      assert.equal(bytes, 64 * 1024 * 1024);
      assert.match(
        head,
        /^\{"status":503,"error":"Service Unavailable","requestId":"[0-9a-f-]+","padding":"x/,
      );
    });

    it("rateLimitHeaders: each form of the 429 wait", async () => {
      const forms = {
        both: (h: Headers) => h.get("retry-after") === "3" && h.get("x-ratelimit-reset") === "3",
        "retry-after-seconds": (h: Headers) => h.get("retry-after") === "3" && !h.has("x-ratelimit-reset"),
        "retry-after-date": (h: Headers) => {
          const waitMs = Date.parse(h.get("retry-after") ?? "") - Date.now();
          return waitMs > 1500 && waitMs <= 4000 && !h.has("x-ratelimit-reset");
        },
        "reset-delta": (h: Headers) => h.get("x-ratelimit-reset") === "3" && !h.has("retry-after"),
        "reset-epoch-seconds": (h: Headers) =>
          Math.abs(Number(h.get("x-ratelimit-reset")) - (Date.now() / 1000 + 3)) < 2 && !h.has("retry-after"),
        "reset-epoch-ms": (h: Headers) =>
          Math.abs(Number(h.get("x-ratelimit-reset")) - (Date.now() + 3000)) < 2000 && !h.has("retry-after"),
        none: (h: Headers) => !h.has("retry-after") && !h.has("x-ratelimit-reset"),
      } as const;
      for (const [form, holds] of Object.entries(forms)) {
        emulator.injectFault({
          status: 429,
          retryAfterSeconds: 3,
          rateLimitHeaders: form as keyof typeof forms,
        });
        const reply = await get();
        assert.equal(reply.status, 429, form);
        assert.ok(holds(reply.headers), `${form}: ${JSON.stringify(Object.fromEntries(reply.headers))}`);
      }
    });

    it("noContent: the DELETE is applied and answered 204 with no body", async () => {
      emulator.injectFault({ noContent: true });
      assert.equal((await get()).status, 200, "a read does not consume it");
      const reply = await call("DELETE", endpointPath);
      assert.equal(reply.status, 204);
      assert.equal(reply.text, "");
      assert.equal(emulator.hasEndpoint(serviceId, "rpe-1"), false);
    });

    it("message: a status answered with the chosen error text", async () => {
      emulator.injectFault({ route: "deleteEndpoint", status: 400, message: "Invalid API key id" });
      const reply = await call("DELETE", endpointPath);
      assert.equal(reply.status, 400);
      assert.equal(JSON.parse(reply.text).error, "Invalid API key id");
      assert.equal(emulator.hasEndpoint(serviceId, "rpe-1"), true);
      assert.equal(emulator.requests[0].requestId, JSON.parse(reply.text).requestId);
    });

    it("echoSecret: the credentials come back where and in the form asked", async () => {
      await emulator.close();
      await start({ keySecret: 'se"cr\\et/+=&% 42' });
      const secret = emulator.keySecret;
      const token = emulatorAuthorization(emulator).slice("Basic ".length);
      emulator.injectFault({ echoSecret: "header" });
      assert.equal((await get()).headers.get("x-echo-authorization"), secret);
      emulator.injectFault({ echoSecret: "requestId", echoForm: "url-encoded" });
      const byId = await get();
      assert.equal(JSON.parse(byId.text).requestId, encodeURIComponent(secret));
      assert.equal(byId.headers.get("x-request-id"), encodeURIComponent(secret));
      emulator.injectFault({ status: 502, echoSecret: "non-json-body", echoForm: "base64" });
      const text = await get();
      assert.throws(() => JSON.parse(text.text));
      assert.ok(text.text.includes(token));
      emulator.injectFault({ status: 500, echoSecret: "long-body", echoForm: "json-escaped" });
      const long = await get();
      const message: string = JSON.parse(long.text).error;
      assert.ok(message.indexOf(JSON.stringify(secret).slice(1, -1)) >= 10 * 1024);
      assert.ok(long.text.includes(JSON.stringify(JSON.stringify(secret).slice(1, -1)).slice(1, -1)));
      emulator.injectFault({ echoSecret: "service-field", echoForm: "authorization" });
      assert.equal(JSON.parse((await get()).text).result.name, `Basic ${token}`);
    });

    it("flipBackAfterMs: the command is applied, then someone else puts the service back", async () => {
      emulator.injectFault({ flipBackAfterMs: 80 });
      assert.equal(JSON.parse((await stop()).text).result.state, "stopping");
      assert.equal(emulator.service(serviceId)?.state, "stopping");
      await new Promise((resolve) => setTimeout(resolve, 120));
      assert.equal(emulator.service(serviceId)?.state, "running");
    });

    it("the log records the state each 200 answer showed, through the visibility lag", async () => {
      emulator.setVisibilityLag(10_000);
      await stop();
      await get();
      assert.deepEqual(
        emulator.requests.map((entry) => [entry.method, entry.stateShown, entry.stateAfter]),
        [
          ["PATCH", "stopping", "stopping"],
          ["GET", "running", "stopping"],
        ],
      );
    });

    it("refuses combinations that could never all happen, naming each", () => {
      const refused: [Fault, RegExp][] = [
        [{ stall: true, status: 500 }, /combines status and stall/],
        [{ message: "x" }, /fault.message needs a status/],
        [{ status: 503, rateLimitHeaders: "none" }, /only applies to status 429/],
        [{ trickleBytes: 4, status: 500 }, /trickleBytes needs trickleMs/],
        [{ drop: "after", trickleMs: 5 }, /trickleMs needs an answer with a body/],
        [{ oversizeBytes: 10 }, /oversizeBytes must be an integer from 1024/],
        [{ oversizeBytes: 4096, malformed: "not-json" }, /pads JSON/],
        [{ noContent: true, route: "getService" }, /only applies to deleteEndpoint/],
        [{ echoSecret: "service-field", status: 500 }, /needs a 200 answer/],
        [{ echoSecret: "header", stall: true }, /needs an answer to echo in/],
        [{ echoForm: "raw", delayMs: 1 }, /echoForm needs echoSecret/],
        [{ echoSecret: "everywhere" as "header" }, /fault.echoSecret must be one of/],
        [{ flipBackAfterMs: 10, status: 500 }, /needs a command that is applied/],
        [{ flipBackAfterMs: 10, route: "getService" }, /only applies to changeState/],
        [{ rateLimitHeaders: "sometimes" as "none", status: 429 }, /must be one of/],
        [{ stall: "later" as "after" }, /fault.stall must be/],
      ];
      for (const [fault, expected] of refused) {
        assert.throws(() => emulator.injectFault(fault), expected, JSON.stringify(fault));
      }
    });
  });
});
