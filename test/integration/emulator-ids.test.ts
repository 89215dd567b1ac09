// The emulator's API over real HTTP: malformed ids, unknown services, endpoints and paths, and
// bad bodies, each answered with the spec's status and error.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { Emulator } from "../../src/emulator";
import {
  assertErrorEnvelope,
  callEmulator as call,
  seededEmulatorEachTest,
  UUID_V4,
} from "../helpers/emulatorHttp";

describe("emulator API", () => {
  const seeded = seededEmulatorEachTest();
  const { organizationId, serviceId, servicePath } = seeded;
  let emulator: Emulator;
  beforeEach(() => (emulator = seeded.emulator));

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
});
