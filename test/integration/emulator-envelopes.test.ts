// The emulator's API over real HTTP: the answer envelopes, authentication, and how close() ends
// connections.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { Agent, request as httpRequest } from "node:http";
import { connect, type Socket } from "node:net";
import { startEmulator, type Emulator } from "../../src/emulator";
import {
  assertErrorEnvelope,
  basicAuth,
  callEmulator as call,
  seededEmulatorEachTest,
  UUID_V4,
} from "../helpers/emulatorHttp";

describe("emulator API", () => {
  const seeded = seededEmulatorEachTest();
  const { organizationId, serviceId, servicePath } = seeded;
  let emulator: Emulator;
  beforeEach(() => (emulator = seeded.emulator));

  describe("envelopes", () => {
    it("GET answers the success envelope with the service, a fresh uuid v4 request id also in X-Request-Id", async () => {
      const reply = await call(emulator, "GET", servicePath);
      assert.equal(reply.status, 200);
      assert.match(reply.headers.get("content-type") ?? "", /^application\/json/);
      assert.deepEqual(Object.keys(reply.body).sort(), ["requestId", "result", "status"]);
      assert.equal(reply.body.status, 200);
      assert.match(String(reply.body.requestId), UUID_V4);
      assert.equal(reply.headers.get("x-request-id"), reply.body.requestId);
      const result = reply.body.result as Record<string, unknown>;
      assert.equal(result.id, serviceId);
      assert.equal(result.state, "running");
      const again = await call(emulator, "GET", servicePath);
      assert.notEqual(again.body.requestId, reply.body.requestId);
    });

    it("PATCH answers the success envelope whose service already shows the transition", async () => {
      const reply = await call(emulator, "PATCH", `${servicePath}/state`, { body: { command: "stop" } });
      assert.equal(reply.status, 200);
      assert.deepEqual(Object.keys(reply.body).sort(), ["requestId", "result", "status"]);
      assert.match(String(reply.body.requestId), UUID_V4);
      assert.equal(reply.headers.get("x-request-id"), reply.body.requestId);
      assert.equal((reply.body.result as { state: string }).state, "stopping");
    });

    it("DELETE of an endpoint answers status and requestId only, and the endpoint is gone", async () => {
      const reply = await call(emulator, "DELETE", `${servicePath}/pipesReversePrivateEndpoints/rpe-1`);
      assert.equal(reply.status, 200);
      assert.deepEqual(Object.keys(reply.body).sort(), ["requestId", "status"]);
      assert.match(String(reply.body.requestId), UUID_V4);
      assert.equal(reply.headers.get("x-request-id"), reply.body.requestId);
      assert.equal(emulator.hasEndpoint(serviceId, "rpe-1"), false);
    });

    it("percent-decodes the endpoint id", async () => {
      emulator.addEndpoint(serviceId, "rpe/with space");
      const path = `${servicePath}/pipesReversePrivateEndpoints/${encodeURIComponent("rpe/with space")}`;
      assert.equal((await call(emulator, "DELETE", path)).status, 200);
      assert.equal(emulator.hasEndpoint(serviceId, "rpe/with space"), false);
    });
  });

  describe("authentication", () => {
    const cases: Array<[string, (emulator: Emulator) => string | null]> = [
      ["no Authorization header", () => null],
      ["a wrong secret", (e) => basicAuth(e.keyId, `${e.keySecret}x`)],
      ["a wrong key id", (e) => basicAuth("emu-key-other", e.keySecret)],
      ["another scheme", (e) => `Bearer ${e.keySecret}`],
      ["garbage credentials", () => "Basic !!!"],
    ];
    for (const [label, authorization] of cases) {
      it(`answers 401 with WWW-Authenticate for ${label}, on every operation`, async () => {
        for (const [method, path] of [
          ["GET", servicePath],
          ["PATCH", `${servicePath}/state`],
          ["DELETE", `${servicePath}/pipesReversePrivateEndpoints/rpe-1`],
        ]) {
          const body = method === "PATCH" ? { command: "stop" } : undefined;
          const reply = await call(emulator, method, path, { body, authorization: authorization(emulator) });
          assertErrorEnvelope(reply, 401, "Unauthorized: invalid API key");
          assert.match(reply.headers.get("www-authenticate") ?? "", /^Basic\b/);
        }
        assert.equal(emulator.service(serviceId)?.state, "running");
        assert.equal(emulator.hasEndpoint(serviceId, "rpe-1"), true);
      });
    }

    it("generates a key pair by default and accepts a given one", async () => {
      assert.match(emulator.keyId, /^emu-key-[0-9a-f]{8}$/);
      assert.ok(emulator.keySecret.length >= 32);
      const custom = await startEmulator({ keyId: "my-key", keySecret: "my-secret" });
      try {
        const unknownService = `/v1/organizations/${organizationId}/services/${randomUUID()}`;
        const authenticated = await call(custom, "GET", unknownService);
        assert.equal(authenticated.status, 404);
        const foreignKey = basicAuth(emulator.keyId, emulator.keySecret);
        assert.equal((await call(custom, "GET", unknownService, { authorization: foreignKey })).status, 401);
      } finally {
        await custom.close();
      }
    });
  });

  describe("connections", () => {
    // Without close() ending them, these connections end only by the server's own timers (the
    // keep-alive timeout, the headers timeout): close() would then outlast the test's timeout.
    it("close() ends idle keep-alive connections at once", async () => {
      const agent = new Agent({ keepAlive: true });
      // The answer read to its end: the socket then sits idle in the agent's pool.
      const socket = await new Promise<Socket>((resolve, reject) => {
        const request = httpRequest(
          `${emulator.url}${servicePath}`,
          { agent, headers: { authorization: basicAuth(emulator.keyId, emulator.keySecret) } },
          (response) => {
            assert.equal(response.headers.connection, "keep-alive");
            response.resume();
            response.once("end", () => resolve(request.socket!));
          },
        );
        request.once("error", reject);
        request.end();
      });
      const received: Buffer[] = [];
      socket.on("data", (chunk: Buffer) => received.push(chunk));
      const socketClosed = new Promise((resolve) => socket.once("close", resolve));
      assert.equal(socket.destroyed, false, "the connection is open and idle before close()");
      await emulator.close();
      await socketClosed;
      assert.equal(Buffer.concat(received).length, 0, "the server ended it without another answer");
      agent.destroy();
      await emulator.close(); // a second close is harmless
    });

    it("close() also ends a connection in the middle of a request instead of waiting for it", async () => {
      const { port } = new URL(emulator.url);
      const socket = connect(Number(port), "127.0.0.1");
      await new Promise((resolve) => socket.once("connect", resolve));
      const received: Buffer[] = [];
      socket.on("data", (chunk: Buffer) => received.push(chunk));
      const socketClosed = new Promise((resolve) => socket.once("close", resolve));
      // Headers never finished: the server holds this connection as active, not idle.
      socket.write(`GET ${servicePath} HTTP/1.1\r\nHost: emulator\r\n`);
      await new Promise((resolve) => setTimeout(resolve, 30));
      await emulator.close();
      await socketClosed;
      // The server's headers timeout would have answered 408 Request Timeout before ending it.
      assert.equal(Buffer.concat(received).toString("utf8"), "", "close() ended it, with no answer");
    });

    it("listens on 127.0.0.1 by default on an ephemeral port", () => {
      assert.match(emulator.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.notEqual(new URL(emulator.url).port, "0");
    });
  });
});
