// The emulator's Service object over real HTTP: its fields, what a seed sets, and the visibility
// lag of GET after a command.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { startEmulator, type Emulator } from "../../src/emulator";
import { callEmulator as call, seededEmulatorEachTest, UUID_V4 } from "../helpers/emulatorHttp";

describe("emulator API", () => {
  const seeded = seededEmulatorEachTest();
  const { organizationId, serviceId, servicePath } = seeded;
  let emulator: Emulator;
  beforeEach(() => (emulator = seeded.emulator));

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
});
