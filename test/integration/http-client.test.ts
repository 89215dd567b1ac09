import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { ApiClient } from "../../src/api/client";
import type { ApiClientOptions } from "../../src/api/options";
import { systemClock } from "../../src/api/clock";
import {
  ApiConnectionError,
  ApiTimeoutError,
  AuthenticationError,
  ConfigurationError,
  ConflictError,
  NotFoundError,
} from "../../src/api/errors";
import { RateBudget } from "../../src/api/rateBudget";
import { startEmulator, type Emulator } from "../../src/emulator";

/* The client over real HTTP against the emulator on 127.0.0.1 (fast retries: base 5 ms). */

describe("API client against the emulator", function () {
  this.timeout(30_000);
  const organizationId = randomUUID();
  const serviceId = randomUUID();
  let emulator: Emulator;

  beforeEach(async () => {
    emulator = await startEmulator({
      transitions: { starting: 100, stopping: 100 },
      services: [
        {
          organizationId,
          id: serviceId,
          name: "analytics",
          state: "stopped",
          reversePrivateEndpointIds: ["rpe-1"],
          fields: { encryptionKey: null, tags: [{ key: "team", value: "data" }] },
        },
      ],
    });
  });
  afterEach(() => emulator.close());

  const client = (options: Partial<ApiClientOptions> = {}) =>
    new ApiClient({
      apiUrl: emulator.url,
      keyId: emulator.keyId,
      keySecret: emulator.keySecret,
      rateLimit: false,
      retry: { baseDelayMs: 5, maxDelayMs: 50 },
      ...options,
    });
  const statuses = () => emulator.requests.map((r) => r.status);

  it("reads a service: typed fields, unknown fields passed through, nulls tolerated", async () => {
    const { service, requestId } = await client().getService(organizationId, serviceId);
    assert.equal(service.id, serviceId);
    assert.equal(service.name, "analytics");
    assert.equal(service.state, "stopped");
    assert.match(requestId!, /^[0-9a-f-]{36}$/);
    assert.equal((service as Record<string, unknown>).encryptionKey, null);
    assert.deepEqual((service as Record<string, unknown>).tags, [{ key: "team", value: "data" }]);
  });

  it("changes the state and deletes an endpoint", async () => {
    const { service } = await client().changeServiceState(organizationId, serviceId, "start");
    assert.equal(service.state, "starting");
    const deleted = await client().deleteReversePrivateEndpoint(organizationId, serviceId, "rpe-1");
    assert.match(deleted.requestId!, /^[0-9a-f-]{36}$/);
    assert.equal(emulator.hasEndpoint(serviceId, "rpe-1"), false);
  });

  it("a wrong secret: AuthenticationError with the request id, never the secret, not retried", async () => {
    const secret = "wrong-secret-123456";
    const error = await client({ keySecret: secret })
      .getService(organizationId, serviceId)
      .then(
        () => assert.fail("should fail"),
        (e: AuthenticationError) => e,
      );
    assert.ok(error instanceof AuthenticationError);
    assert.equal(error.status, 401);
    assert.match(error.requestId!, /^[0-9a-f-]{36}$/);
    const token = Buffer.from(`${emulator.keyId}:${secret}`).toString("base64");
    const shown = `${error.message}${error.stack}${JSON.stringify(error)}`;
    assert.ok(!shown.includes(secret) && !shown.includes(token));
    assert.deepEqual(statuses(), [401]);
  });

  it("an unknown service: NotFoundError, not retried", async () => {
    await assert.rejects(client().getService(organizationId, randomUUID()), NotFoundError);
    assert.deepEqual(statuses(), [404]);
  });

  it("409 on a command is not retried", async () => {
    emulator.setState(serviceId, "stopping");
    await assert.rejects(client().changeServiceState(organizationId, serviceId, "start"), ConflictError);
    assert.deepEqual(statuses(), [409]);
  });

  it("429 then success, waiting what Retry-After says", async () => {
    const sleeps: number[] = [];
    emulator.injectFault({ route: "getService", status: 429, retryAfterSeconds: 2 });
    const c = client({ clock: { now: () => Date.now(), sleep: async (ms) => void sleeps.push(ms) } });
    await c.getService(organizationId, serviceId);
    assert.deepEqual(statuses(), [429, 200]);
    assert.ok(sleeps[0] >= 2000 && sleeps[0] <= 2005, `waited ${sleeps[0]} ms`);
  });

  it("503 twice then success", async () => {
    emulator.injectFault({ route: "getService", status: 503, times: 2 });
    const c = client();
    await c.getService(organizationId, serviceId);
    assert.deepEqual(statuses(), [503, 503, 200]);
    assert.equal(c.stats.retries, 2);
  });

  it("a dropped connection then success; a PATCH whose answer was lost is repeated safely", async () => {
    emulator.injectFault({ route: "getService", drop: "before" });
    await client().getService(organizationId, serviceId);
    emulator.injectFault({ route: "changeState", drop: "after" });
    const { service } = await client().changeServiceState(organizationId, serviceId, "start");
    assert.equal(service.state, "starting");
    assert.deepEqual(statuses(), ["dropped", 200, "dropped", 200]);
  });

  it("gives up after the attempt cap with the last error", async () => {
    emulator.injectFault({ route: "getService", drop: "before", times: Infinity });
    await assert.rejects(
      client({ retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 1 } }).getService(
        organizationId,
        serviceId,
      ),
      ApiConnectionError,
    );
    assert.equal(emulator.requests.length, 3);
  });

  // undici checks timeouts on a coarse timer (about half a second), hence the long delay.
  it("a slow answer times out (per attempt) and is retried", async () => {
    emulator.injectFault({ route: "getService", delayMs: 3000 });
    const c = client({ timeouts: { headersMs: 200 } });
    await c.getService(organizationId, serviceId);
    assert.equal(c.stats.outcomes.timeout, 1);
    emulator.injectFault({ route: "getService", delayMs: 3000, times: Infinity });
    await assert.rejects(
      client({ timeouts: { headersMs: 200 }, retry: { maxAttempts: 2, baseDelayMs: 1 } }).getService(
        organizationId,
        serviceId,
      ),
      ApiTimeoutError,
    );
  });

  it("refuses http:// to a host that is not loopback, before any request", () => {
    assert.throws(() => client({ apiUrl: "http://api.example.com" }), ConfigurationError);
  });

  it("with a shared budget, a burst of 30 stays under the server's limit: zero 429", async () => {
    emulator.setRateLimit({ requests: 10, windowMs: 500 });
    const budget = new RateBudget({ requests: 10, windowMs: 500 }, systemClock);
    const c = client({ budget });
    await Promise.all(Array.from({ length: 30 }, () => c.getService(organizationId, serviceId)));
    assert.equal(emulator.requests.length, 30);
    assert.equal(emulator.requests.filter((r) => r.status === 429).length, 0);
  });

  it("without a budget the same burst trips 429s, and retries still carry every call through", async () => {
    emulator.setRateLimit({ requests: 10, windowMs: 500 });
    const c = client({ retry: { baseDelayMs: 5, maxDelayMs: 50, maxAttempts: 20 } });
    const results = await Promise.all(
      Array.from({ length: 30 }, () => c.getService(organizationId, serviceId)),
    );
    assert.equal(results.length, 30);
    assert.ok(emulator.requests.filter((r) => r.status === 429).length > 0);
  });
});
