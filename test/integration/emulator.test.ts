// The emulator's API over real HTTP: envelopes, auth, id checks, not-found cases, the Service
// object, visibility lag, rate limit, request log and keep-alive shutdown.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { Agent, request as httpRequest } from "node:http";
import { connect } from "node:net";
import { startEmulator, type Emulator } from "../../src/emulator";

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  body: Record<string, unknown>;
}

function basicAuth(keyId: string, keySecret: string): string {
  return `Basic ${Buffer.from(`${keyId}:${keySecret}`).toString("base64")}`;
}

async function call(
  emulator: Emulator,
  method: string,
  path: string,
  options: { body?: unknown; authorization?: string | null } = {},
): Promise<Reply> {
  const headers: Record<string, string> = {};
  const authorization =
    options.authorization === undefined
      ? basicAuth(emulator.keyId, emulator.keySecret)
      : options.authorization;
  if (authorization !== null) headers.authorization = authorization;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers,
    body: typeof options.body === "string" ? options.body : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
}

function assertErrorEnvelope(reply: Reply, status: number, error: string): void {
  assert.equal(reply.status, status);
  assert.deepEqual(Object.keys(reply.body).sort(), ["error", "requestId", "status"]);
  assert.equal(reply.body.status, status);
  assert.equal(reply.body.error, error);
  assert.match(String(reply.body.requestId), UUID_V4);
  assert.equal(reply.headers.get("x-request-id"), reply.body.requestId);
}

describe("emulator API", () => {
  const organizationId = randomUUID();
  const serviceId = randomUUID();
  const servicePath = `/v1/organizations/${organizationId}/services/${serviceId}`;
  let emulator: Emulator;

  beforeEach(async () => {
    emulator = await startEmulator({
      transitions: { starting: 50, stopping: 50, awaking: 50 },
      services: [{ organizationId, id: serviceId, name: "analytics", reversePrivateEndpointIds: ["rpe-1"] }],
    });
  });
  afterEach(() => emulator.close());

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

  describe("ids and unknown things", () => {
    it("answers 400 for a malformed organization id, checked before the service id", async () => {
      for (const [method, suffix] of [
        ["GET", ""],
        ["PATCH", "/state"],
        ["DELETE", "/pipesReversePrivateEndpoints/rpe-1"],
      ]) {
        const body = method === "PATCH" ? { command: "stop" } : undefined;
        const badOrg = await call(emulator, method, `/v1/organizations/not-a-uuid/services/nope${suffix}`, {
          body,
        });
        assertErrorEnvelope(badOrg, 400, "Invalid organization id");
        const badService = await call(
          emulator,
          method,
          `/v1/organizations/${organizationId}/services/nope${suffix}`,
          {
            body,
          },
        );
        assertErrorEnvelope(badService, 400, "Invalid service id");
      }
    });

    it("answers 404 Service not found for an unknown service and for another organization's", async () => {
      const unknown = await call(
        emulator,
        "GET",
        `/v1/organizations/${organizationId}/services/${randomUUID()}`,
      );
      assertErrorEnvelope(unknown, 404, "Service not found");
      const otherOrganization = `/v1/organizations/${randomUUID()}/services/${serviceId}`;
      assertErrorEnvelope(await call(emulator, "GET", otherOrganization), 404, "Service not found");
      const patch = await call(emulator, "PATCH", `${otherOrganization}/state`, {
        body: { command: "stop" },
      });
      assertErrorEnvelope(patch, 404, "Service not found");
      const del = await call(emulator, "DELETE", `${otherOrganization}/pipesReversePrivateEndpoints/rpe-1`);
      assertErrorEnvelope(del, 404, "Service not found");
      assert.equal(emulator.service(serviceId)?.state, "running");
      assert.equal(emulator.hasEndpoint(serviceId, "rpe-1"), true);
    });

    it("finds a service whatever the case of its uuid", async () => {
      const upper = `/v1/organizations/${organizationId.toUpperCase()}/services/${serviceId.toUpperCase()}`;
      assert.equal((await call(emulator, "GET", upper)).status, 200);
    });

    it("answers 404 for an unknown endpoint, also on a second delete", async () => {
      const path = `${servicePath}/pipesReversePrivateEndpoints/rpe-1`;
      assert.equal((await call(emulator, "DELETE", path)).status, 200);
      assertErrorEnvelope(await call(emulator, "DELETE", path), 404, "Reverse private endpoint not found");
      const never = `${servicePath}/pipesReversePrivateEndpoints/never-existed`;
      assertErrorEnvelope(await call(emulator, "DELETE", never), 404, "Reverse private endpoint not found");
    });

    it("answers 404 for an unknown path and 405 with Allow for a wrong method on a known one", async () => {
      const unknown = await call(emulator, "GET", `/v1/organizations/${organizationId}/services`);
      assert.equal(unknown.status, 404);
      assert.match(String(unknown.body.requestId), UUID_V4);
      assert.match(String(unknown.body.error), /no route/);
      const wrongMethod = await call(emulator, "POST", `${servicePath}/state`, { body: { command: "stop" } });
      assert.equal(wrongMethod.status, 405);
      assert.equal(wrongMethod.headers.get("allow"), "PATCH");
      assert.match(String(wrongMethod.body.requestId), UUID_V4);
      assert.equal(emulator.service(serviceId)?.state, "running");
    });

    it("answers 400 naming the problem for a bad state-change body", async () => {
      const path = `${servicePath}/state`;
      const cases: Array<[unknown, RegExp]> = [
        ["{not json", /^Invalid JSON body: /],
        ["", /^Invalid JSON body: the body is empty$/],
        [[1, 2], /^Invalid body: expected a JSON object/],
        [{}, /^Invalid body: missing "command"/],
        [{ command: "pause" }, /^Invalid command "pause": expected "start" or "stop"$/],
        [{ command: 1 }, /^Invalid command 1: expected "start" or "stop"$/],
      ];
      for (const [body, message] of cases) {
        const reply = await call(emulator, "PATCH", path, { body });
        assert.equal(reply.status, 400, `body ${JSON.stringify(body)}`);
        assert.match(String(reply.body.error), message);
        assert.match(String(reply.body.requestId), UUID_V4);
      }
      assert.equal(emulator.service(serviceId)?.state, "running");
    });

    it("answers 400 for a malformed percent-encoding and 413 for an oversized body", async () => {
      const badEncoding = await call(
        emulator,
        "DELETE",
        `${servicePath}/pipesReversePrivateEndpoints/%E0%A4%A`,
      );
      assert.equal(badEncoding.status, 400);
      assert.match(String(badEncoding.body.error), /malformed percent-encoding/);
      const huge = await call(emulator, "PATCH", `${servicePath}/state`, {
        body: { command: "stop", pad: "x".repeat(70_000) },
      });
      assert.equal(huge.status, 413);
      assert.match(String(huge.body.requestId), UUID_V4);
      assert.equal(emulator.service(serviceId)?.state, "running");
    });

    it("answers 404 after an out-of-band removal", async () => {
      emulator.removeService(serviceId);
      assertErrorEnvelope(await call(emulator, "GET", servicePath), 404, "Service not found");
      assert.equal(emulator.service(serviceId), undefined);
      assert.throws(() => emulator.removeService(serviceId), /does not exist/);
    });
  });

  describe("the Service object", () => {
    it("carries the spec's fields, realistic extras and nulls, and no organization id", async () => {
      const result = (await call(emulator, "GET", servicePath)).body.result as Record<string, unknown>;
      assert.equal(result.name, "analytics");
      assert.equal(result.provider, "aws");
      assert.equal(result.region, "us-east-1");
      assert.equal(typeof result.databaseVersion, "string");
      const endpoints = result.endpoints as Array<Record<string, unknown>>;
      assert.deepEqual(
        endpoints.map(({ protocol, port, username }) => ({ protocol, port, username })),
        [
          { protocol: "https", port: 8443, username: null },
          { protocol: "nativesecure", port: 9440, username: null },
        ],
      );
      assert.ok(endpoints.every((endpoint) => typeof endpoint.host === "string"));
      assert.deepEqual(result.ipAccessList, [{ source: "0.0.0.0/0", description: "anywhere" }]);
      assert.ok(!Number.isNaN(Date.parse(String(result.createdAt))));
      assert.equal(result.encryptionKey, null);
      assert.equal(result.iamRole, null);
      assert.deepEqual(result.privateEndpointIds, []);
      for (const field of [
        "tier",
        "idleScaling",
        "idleTimeoutMinutes",
        "minReplicaMemoryGb",
        "maxReplicaMemoryGb",
      ]) {
        assert.ok(field in result, field);
      }
      for (const field of ["numReplicas", "dataWarehouseId", "isPrimary", "isReadonly", "releaseChannel"]) {
        assert.ok(field in result, field);
      }
      for (const extra of ["minReplicas", "maxReplicas", "autoscalingMode", "tags"])
        assert.ok(extra in result, extra);
      assert.equal("organizationId" in result, false);
      assert.equal("reversePrivateEndpointIds" in result, false);
    });

    it("takes overrides and extra fields from the seed", async () => {
      const id = randomUUID();
      const returned = emulator.addService({
        organizationId,
        id,
        state: "stopped",
        fields: { databaseVersion: "24.8", releaseChannel: null, currentScaling: { replicas: 2 } },
      });
      assert.equal(returned.id, id);
      assert.equal(returned.state, "stopped");
      const result = (await call(emulator, "GET", `/v1/organizations/${organizationId}/services/${id}`)).body
        .result as Record<string, unknown>;
      assert.equal(result.databaseVersion, "24.8");
      assert.equal(result.releaseChannel, null);
      assert.deepEqual(result.currentScaling, { replicas: 2 });
      assert.equal(result.state, "stopped");
    });

    it("shows a null state when the seed's fields say so, while the state machine runs on", async () => {
      const id = randomUUID();
      emulator.addService({ organizationId, id, state: "running", fields: { state: null, name: null } });
      const path = `/v1/organizations/${organizationId}/services/${id}`;
      const result = (await call(emulator, "GET", path)).body.result as Record<string, unknown>;
      assert.equal(result.state, null);
      assert.equal(result.name, null);
      assert.equal("state" in result, true);
      await call(emulator, "PATCH", `${path}/state`, { body: { command: "stop" } });
      const patch = emulator.requests.filter((r) => r.method === "PATCH" && r.serviceId === id);
      assert.deepEqual(
        patch.map((r) => [r.stateBefore, r.stateAfter]),
        [["running", "stopping"]],
      );
      assert.throws(
        () => emulator.addService({ organizationId, fields: { state: "running" } }),
        /service.fields.state cannot be set through fields/,
      );
    });

    it("generates an id when the seed has none, and refuses a duplicate or invalid seed", () => {
      const added = emulator.addService({ organizationId });
      assert.match(added.id, UUID_V4);
      assert.equal(added.state, "running");
      assert.throws(() => emulator.addService({ organizationId, id: serviceId }), /already exists/);
      assert.throws(
        () => emulator.addService({ organizationId: "org-1", fields: { state: "x" } }),
        (error: Error) =>
          /service.organizationId must be a uuid/.test(error.message) &&
          /service.fields.state cannot be set through fields/.test(error.message),
      );
    });

    it("hands out copies: editing a returned view does not edit the service", () => {
      const view = emulator.service(serviceId);
      assert.ok(view);
      view.name = "changed";
      (view.endpoints as unknown[]).length = 0;
      assert.equal(emulator.service(serviceId)?.name, "analytics");
      assert.equal((emulator.service(serviceId)?.endpoints as unknown[]).length, 2);
    });
  });

  describe("visibility lag", () => {
    it("GET shows the pre-command state for visibilityLagMs while the PATCH answer and service() do not", async () => {
      let clock = 1_000_000;
      const lagged = await startEmulator({
        now: () => clock,
        visibilityLagMs: 500,
        transitions: { stopping: 50 },
        services: [{ organizationId, id: serviceId }],
      });
      try {
        const patch = await call(lagged, "PATCH", `${servicePath}/state`, { body: { command: "stop" } });
        assert.equal((patch.body.result as { state: string }).state, "stopping");
        const stateSeenByGet = async () =>
          ((await call(lagged, "GET", servicePath)).body.result as { state: string }).state;
        assert.equal(await stateSeenByGet(), "running");
        assert.equal(lagged.service(serviceId)?.state, "stopping");
        clock += 499;
        assert.equal(await stateSeenByGet(), "running");
        assert.equal(lagged.service(serviceId)?.state, "stopped");
        clock += 1;
        assert.equal(await stateSeenByGet(), "stopped");
        // The log tells the truth even while GET lags.
        const gets = lagged.requests.filter((entry) => entry.route === "getService");
        assert.deepEqual(
          gets.map((entry) => entry.stateAfter),
          ["stopping", "stopped", "stopped"],
        );
        // A command that changes nothing starts no lag; setVisibilityLag applies to the next command.
        lagged.setVisibilityLag(0);
        await call(lagged, "PATCH", `${servicePath}/state`, { body: { command: "start" } });
        assert.equal(await stateSeenByGet(), "starting");
      } finally {
        await lagged.close();
      }
    });
  });

  describe("rate limit", () => {
    /** The reset a window of `windowMs` names 180 ms into it, in both headers. */
    async function resetAfter180Ms(windowMs: number): Promise<string | null> {
      let clock = 5_000_000;
      const limited = await startEmulator({
        now: () => clock,
        rateLimit: { requests: 1, windowMs },
        services: [{ organizationId, id: serviceId }],
      });
      try {
        assert.equal((await call(limited, "GET", servicePath)).status, 200);
        clock += 180;
        const refused = await call(limited, "GET", servicePath);
        assert.equal(refused.status, 429);
        assert.equal(refused.headers.get("retry-after"), refused.headers.get("x-ratelimit-reset"));
        return refused.headers.get("x-ratelimit-reset");
      } finally {
        await limited.close();
      }
    }

    it("gives a window that is not whole seconds (a scaled one) its reset in milliseconds, not a whole second", async () => {
      assert.equal(await resetAfter180Ms(500), "0.32");
    });

    it("rounds a scaled whole-second window's reset up to a tenth of it, as the real 10 s window's to a second", async () => {
      assert.equal(await resetAfter180Ms(1_000), "0.9", "820 ms left, rounded up to 900");
    });

    it("answers 429 with Retry-After and X-RateLimit-Reset past the budget, and recovers after the window", async () => {
      let clock = 5_000_000;
      const limited = await startEmulator({
        now: () => clock,
        rateLimit: { requests: 3, windowMs: 10_000 },
        services: [{ organizationId, id: serviceId }],
      });
      try {
        // Unauthenticated requests are refused before they can spend the key's budget.
        assert.equal((await call(limited, "GET", servicePath, { authorization: null })).status, 401);
        for (let index = 0; index < 3; index += 1)
          assert.equal((await call(limited, "GET", servicePath)).status, 200);
        clock += 1_500;
        const refused = await call(limited, "GET", servicePath);
        assertErrorEnvelope(refused, 429, "TOO_MANY_REQUESTS");
        assert.equal(refused.headers.get("retry-after"), "9");
        assert.equal(refused.headers.get("x-ratelimit-reset"), "9");
        // Refused requests change nothing.
        const patch = await call(limited, "PATCH", `${servicePath}/state`, { body: { command: "stop" } });
        assert.equal(patch.status, 429);
        assert.equal(limited.service(serviceId)?.state, "running");
        clock += 8_499;
        assert.equal((await call(limited, "GET", servicePath)).headers.get("retry-after"), "1");
        clock += 1;
        assert.equal((await call(limited, "GET", servicePath)).status, 200);
        const rateLimited = limited.requests.filter((entry) => entry.rateLimited);
        assert.equal(rateLimited.length, 3);
        assert.ok(rateLimited.every((entry) => entry.status === 429 && entry.authorized));
        limited.setRateLimit(false);
        for (let index = 0; index < 5; index += 1)
          assert.equal((await call(limited, "GET", servicePath)).status, 200);
      } finally {
        await limited.close();
      }
    });
  });

  describe("request log", () => {
    it("records API requests in order with route, ids, command, status and true states", async () => {
      await call(emulator, "GET", servicePath);
      await call(emulator, "PATCH", `${servicePath}/state`, { body: { command: "stop" } });
      await call(emulator, "DELETE", `${servicePath}/pipesReversePrivateEndpoints/rpe-1`);
      await call(emulator, "GET", servicePath, { authorization: null });
      await fetch(`${emulator.url}/_emulator/requests`);
      const log = emulator.requests;
      assert.equal(log.length, 4);
      assert.deepEqual(
        log.map((entry) => entry.seq),
        [1, 2, 3, 4],
      );
      assert.ok(log.every((entry) => typeof entry.at === "number" && entry.at > 0));
      assert.deepEqual(log[0], {
        ...log[0],
        method: "GET",
        path: servicePath,
        route: "getService",
        organizationId,
        serviceId,
        status: 200,
        stateBefore: "running",
        stateAfter: "running",
        authorized: true,
      });
      assert.equal(log[1].route, "changeState");
      assert.equal(log[1].command, "stop");
      assert.equal(log[1].stateBefore, "running");
      assert.equal(log[1].stateAfter, "stopping");
      assert.equal(log[2].route, "deleteEndpoint");
      assert.equal(log[2].endpointId, "rpe-1");
      assert.equal(log[2].status, 200);
      assert.equal(log[3].status, 401);
      assert.equal(log[3].authorized, false);
      assert.equal(log[3].fault, undefined);
      emulator.clearRequests();
      assert.equal(emulator.requests.length, 0);
      await call(emulator, "GET", servicePath);
      assert.equal(emulator.requests[0].seq, 5);
    });

    it("uses the injected clock for entry times", async () => {
      const clocked = await startEmulator({
        now: () => 42_000,
        services: [{ organizationId, id: serviceId }],
      });
      try {
        await call(clocked, "GET", servicePath);
        assert.equal(clocked.requests[0].at, 42_000);
      } finally {
        await clocked.close();
      }
    });
  });

  describe("connections", () => {
    it("close() ends idle keep-alive connections at once", async () => {
      const agent = new Agent({ keepAlive: true });
      const socketClosed = new Promise<void>((resolve) => {
        const request = httpRequest(
          `${emulator.url}${servicePath}`,
          { agent, headers: { authorization: basicAuth(emulator.keyId, emulator.keySecret) } },
          (response) => {
            assert.equal(response.headers.connection, "keep-alive");
            response.resume();
          },
        );
        request.on("socket", (socket) => socket.once("close", () => resolve()));
        request.end();
      });
      // Let the response finish so the socket is idle in the agent's pool.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const startedAt = Date.now();
      await emulator.close();
      await socketClosed;
      assert.ok(Date.now() - startedAt < 1000, "close() waited for the keep-alive timeout");
      agent.destroy();
      await emulator.close(); // a second close is harmless
    });

    it("close() also ends a connection in the middle of a request instead of waiting for it", async () => {
      const { port } = new URL(emulator.url);
      const socket = connect(Number(port), "127.0.0.1");
      await new Promise((resolve) => socket.once("connect", resolve));
      const socketClosed = new Promise((resolve) => socket.once("close", resolve));
      // Headers never finished: the server holds this connection as active, not idle.
      socket.write(`GET ${servicePath} HTTP/1.1\r\nHost: emulator\r\n`);
      await new Promise((resolve) => setTimeout(resolve, 30));
      const startedAt = Date.now();
      await emulator.close();
      await socketClosed;
      assert.ok(Date.now() - startedAt < 1000, "close() waited for the half-sent request");
    });

    it("listens on 127.0.0.1 by default on an ephemeral port", () => {
      assert.match(emulator.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.notEqual(new URL(emulator.url).port, "0");
    });
  });
});
