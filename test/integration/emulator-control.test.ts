// The control surface under /_emulator/: no auth, JSON, and the same effects as the programmatic
// API, seen through the API itself.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { startEmulator, type Emulator } from "../../src/emulator";
import { sendToEmulator } from "../helpers/emulatorHttp";

interface Reply {
  status: number;
  body: Record<string, unknown>;
}

describe("emulator control surface", () => {
  const organizationId = randomUUID();
  const serviceId = randomUUID();
  const servicePath = `/v1/organizations/${organizationId}/services/${serviceId}`;
  let emulator: Emulator;

  beforeEach(async () => {
    emulator = await startEmulator({ transitions: { stopping: 5_000 } });
  });
  afterEach(() => emulator.close());

  async function control(method: string, path: string, body?: unknown): Promise<Reply> {
    const response = await fetch(`${emulator.url}/_emulator/${path}`, {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  async function api(method: string, path: string, body?: unknown): Promise<Reply> {
    const response = await sendToEmulator(emulator, method, path, body);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }
  const apiState = async () => ((await api("GET", servicePath)).body.result as { state: string }).state;
  const seed = () =>
    control("POST", "services", {
      organizationId,
      id: serviceId,
      name: "seeded",
      reversePrivateEndpointIds: ["rpe-1"],
      fields: { databaseVersion: "24.8" },
    });

  it("POST services seeds a service the API then serves; GET describes it with its organization and endpoints", async () => {
    const created = await seed();
    assert.equal(created.status, 201);
    assert.equal(created.body.organizationId, organizationId);
    assert.deepEqual(created.body.reversePrivateEndpointIds, ["rpe-1"]);
    assert.equal((created.body.service as { id: string }).id, serviceId);
    const served = await api("GET", servicePath);
    assert.equal(served.status, 200);
    assert.equal((served.body.result as { name: string }).name, "seeded");
    assert.equal((served.body.result as { databaseVersion: string }).databaseVersion, "24.8");
    const described = await control("GET", `services/${serviceId}`);
    assert.equal(described.status, 200);
    assert.equal((described.body.service as { state: string }).state, "running");
    assert.equal((await control("GET", `services/${randomUUID()}`)).status, 404);
  });

  it("refuses an invalid seed with every problem named, and a duplicate with 409", async () => {
    const invalid = await control("POST", "services", { organizationId: "org", state: 3, colour: "red" });
    assert.equal(invalid.status, 400);
    const issues = invalid.body.issues as string[];
    assert.ok(issues.some((issue) => issue.startsWith("service.organizationId must be a uuid")));
    assert.ok(issues.some((issue) => issue.startsWith("service.state must be a non-empty string")));
    assert.ok(issues.some((issue) => issue === "service.colour is not a known field"));
    assert.equal((await control("POST", "services", "{nope")).status, 400);
    await seed();
    assert.equal((await seed()).status, 409);
  });

  it("POST services/{id}/state flips the state out of band, optionally moving on", async () => {
    await seed();
    assert.equal((await control("POST", `services/${serviceId}/state`, { state: "stopped" })).status, 200);
    assert.equal(await apiState(), "stopped");
    await control("POST", `services/${serviceId}/state`, {
      state: "upgrading",
      then: { state: "running", afterMs: 150 },
    });
    assert.equal(await apiState(), "upgrading");
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(await apiState(), "running");
    const invalid = await control("POST", `services/${serviceId}/state`, {
      state: "",
      then: { afterMs: -1 },
    });
    assert.equal(invalid.status, 400);
    assert.equal((invalid.body.issues as string[]).length, 3);
    assert.equal((await control("POST", `services/${randomUUID()}/state`, { state: "stopped" })).status, 404);
  });

  it("POST services/{id}/endpoints adds an endpoint the API can delete", async () => {
    await seed();
    const added = await control("POST", `services/${serviceId}/endpoints`, { endpointId: "rpe-2" });
    assert.equal(added.status, 201);
    assert.deepEqual(added.body.reversePrivateEndpointIds, ["rpe-1", "rpe-2"]);
    assert.equal((await api("DELETE", `${servicePath}/pipesReversePrivateEndpoints/rpe-2`)).status, 200);
    assert.equal(emulator.hasEndpoint(serviceId, "rpe-2"), false);
    assert.equal((await control("POST", `services/${serviceId}/endpoints`, {})).status, 400);
  });

  it("DELETE services/{id} removes the service: the API answers 404", async () => {
    await seed();
    assert.equal((await control("DELETE", `services/${serviceId}`)).status, 200);
    assert.equal((await api("GET", servicePath)).status, 404);
    assert.equal((await control("DELETE", `services/${serviceId}`)).status, 404);
  });

  it("POST faults injects a fault (times may be the string Infinity); DELETE faults clears them", async () => {
    await seed();
    assert.equal(
      (await control("POST", "faults", { route: "getService", status: 503, times: "Infinity" })).status,
      201,
    );
    assert.equal((await api("GET", servicePath)).status, 503);
    assert.equal((await api("GET", servicePath)).status, 503);
    assert.equal((await control("DELETE", "faults")).status, 200);
    assert.equal((await api("GET", servicePath)).status, 200);
    const invalid = await control("POST", "faults", { status: 500, drop: "before" });
    assert.equal(invalid.status, 400);
    assert.match(String(invalid.body.error), /combines status and drop/);
  });

  it("GET requests lists API requests only; DELETE requests clears the log", async () => {
    await seed();
    await api("GET", servicePath);
    await api("PATCH", `${servicePath}/state`, { command: "stop" });
    const listed = await control("GET", "requests");
    const requests = listed.body.requests as Array<Record<string, unknown>>;
    assert.deepEqual(
      requests.map((entry) => [entry.route, entry.status, entry.stateAfter]),
      [
        ["getService", 200, "running"],
        ["changeState", 200, "stopping"],
      ],
    );
    assert.equal((await control("DELETE", "requests")).status, 200);
    assert.deepEqual((await control("GET", "requests")).body.requests, []);
  });

  it("PUT rate-limit sets or lifts the limit", async () => {
    await seed();
    assert.equal((await control("PUT", "rate-limit", { requests: 1, windowMs: 60_000 })).status, 200);
    assert.equal((await api("GET", servicePath)).status, 200);
    assert.equal((await api("GET", servicePath)).status, 429);
    assert.equal((await control("PUT", "rate-limit", false)).status, 200);
    assert.equal((await api("GET", servicePath)).status, 200);
    assert.equal((await control("PUT", "rate-limit", { requests: 0 })).status, 400);
  });

  it('PUT rate-limit with reset "window" names the whole window in every 429', async () => {
    let now = 1_000_000;
    const own = await startEmulator({ now: () => now });
    try {
      own.addService({ organizationId, id: serviceId });
      const put = (limit: unknown) =>
        fetch(`${own.url}/_emulator/rate-limit`, { method: "PUT", body: JSON.stringify(limit) });
      const resetAfter = async (ms: number) => {
        assert.equal((await sendToEmulator(own, "GET", servicePath)).status, 200, "the window's one request");
        now += ms;
        const refused = await sendToEmulator(own, "GET", servicePath);
        assert.equal(refused.status, 429);
        return refused.headers.get("x-ratelimit-reset");
      };
      const limit = { requests: 1, windowMs: 60_000 };
      assert.equal((await put(limit)).status, 200);
      assert.equal(await resetAfter(20_000), "40", "by default, the time left in the window");
      assert.equal((await put({ ...limit, reset: "window" })).status, 200);
      assert.equal(await resetAfter(20_000), "60");
      assert.equal((await put({ ...limit, reset: "always" })).status, 400);
    } finally {
      await own.close();
    }
  });

  it("PUT visibility-lag and PUT transitions change the next commands", async () => {
    await seed();
    assert.equal((await control("PUT", "visibility-lag", { ms: 60_000 })).status, 200);
    const transitions = await control("PUT", "transitions", { stopping: 40 });
    assert.equal((transitions.body.transitions as { stopping: number }).stopping, 40);
    await api("PATCH", `${servicePath}/state`, { command: "stop" });
    assert.equal(await apiState(), "running");
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.equal(emulator.service(serviceId)?.state, "stopped");
    assert.equal((await control("PUT", "transitions", { pausing: 1 })).status, 400);
  });

  it("answers 404 for an unknown control route", async () => {
    const reply = await control("GET", "nothing-here");
    assert.equal(reply.status, 404);
    assert.match(String(reply.body.error), /No control route/);
    assert.equal(
      (await control("POST", `services/${serviceId}/state/extra`, { state: "stopped" })).status,
      404,
    );
  });
});
