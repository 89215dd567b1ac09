// The fault kinds the fault suite injects, over real HTTP: stalls, trickled and oversized
// bodies, each form of a 429's wait, echoed secrets, flips back and the visibility lag.
import assert from "node:assert/strict";
import type { Emulator, Fault } from "../../src/emulator";
import { emulatorAuthorization, sendToEmulator } from "../helpers/emulatorHttp";
import { faultEmulatorEachTest } from "../helpers/faultEmulator";

describe("emulator faults", () => {
  const rig = faultEmulatorEachTest();
  const { serviceId, servicePath, endpointPath, start, call, stop, get } = rig;
  let emulator: Emulator;
  beforeEach(() => {
    emulator = rig.emulator;
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
      await emulator.close();
      // The stall never answers: only close() can end the call, with the connection cut.
      await assert.rejects(pending, TypeError);
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
      emulator = await start({ keySecret: 'se"cr\\et/+=&% 42' });
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
