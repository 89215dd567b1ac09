import assert from "node:assert/strict";
import { customTimeoutSeconds, parseDurationSeconds } from "../../src/resources/programDefaults";
import { ReversePrivateEndpointDeletion, ServiceRunState } from "../../src";
import { captureProgram } from "../../src/engine-driver/capture";

/* What the resource classes resolve in the program, before the provider ever runs. */

const SERVICE = "3f2a1c9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b";
const ORG = "5f0c3a52-8d1e-4b7a-9c63-0e2f7d4a1b90";

describe("program-time defaults", () => {
  it("parses customTimeouts durations", () => {
    const table: [string, number | undefined][] = [
      ["90s", 90],
      ["20m", 1200],
      ["1h30m", 5400],
      ["1.5h", 5400],
      ["500ms", 0.5],
      ["20", undefined],
      ["soon", undefined],
      ["", undefined],
    ];
    for (const [text, seconds] of table) assert.equal(parseDurationSeconds(text), seconds, text);
  });

  it("takes the longer of create and update, and names the option on a bad value", () => {
    const createOrUpdate = (timeouts: Parameters<typeof customTimeoutSeconds>[2]) =>
      customTimeoutSeconds("ServiceRunState", "a", timeouts, ["create", "update"]);
    assert.equal(createOrUpdate({ create: "10m", update: "30m" }), 1800);
    assert.equal(createOrUpdate({ delete: "5m" }), undefined);
    assert.equal(createOrUpdate(undefined), undefined);
    assert.throws(
      () => createOrUpdate({ create: "ten minutes" }),
      /ServiceRunState "a": customTimeouts.create "ten minutes" is not a duration; write it like "20m"/,
    );
  });

  it("turns customTimeouts into timeoutSeconds, and an explicit timeoutSeconds wins", async () => {
    const resources = await captureProgram(
      () => {
        new ServiceRunState(
          "a",
          { serviceId: SERVICE, state: "running" },
          { customTimeouts: { create: "45m" } },
        );
        new ServiceRunState(
          "b",
          { serviceId: SERVICE, state: "running", timeoutSeconds: 60 },
          { customTimeouts: { create: "45m" } },
        );
        new ServiceRunState("c", { serviceId: SERVICE, state: "stopped" });
      },
      { project: "defaults", stack: "test", config: { "dbcloud:organizationId": ORG } },
    );
    const inputs = Object.fromEntries(resources.map((r) => [r.name, r.inputs]));
    assert.equal(inputs.a.timeoutSeconds, 2700);
    assert.equal(inputs.b.timeoutSeconds, 60);
    assert.equal(inputs.c.timeoutSeconds, undefined, "left to the provider's default");
    assert.equal(inputs.a.organizationId, ORG, "organizationId from stack config");
  });

  it("turns customTimeouts.delete into deleteTimeoutSeconds, and passes onDestroy through", async () => {
    const resources = await captureProgram(
      () => {
        new ServiceRunState(
          "a",
          { serviceId: SERVICE, state: "running", onDestroy: "stop" },
          { customTimeouts: { create: "45m", delete: "5m" } },
        );
        new ServiceRunState(
          "b",
          { serviceId: SERVICE, state: "running", onDestroy: "stop", deleteTimeoutSeconds: 30 },
          { customTimeouts: { delete: "5m" } },
        );
        new ServiceRunState("c", { serviceId: SERVICE, state: "running" });
      },
      { project: "defaults", stack: "test", config: { "dbcloud:organizationId": ORG } },
    );
    const inputs = Object.fromEntries(resources.map((r) => [r.name, r.inputs]));
    assert.equal(inputs.a.deleteTimeoutSeconds, 300);
    assert.equal(inputs.a.timeoutSeconds, 2700, "delete does not count for create/update");
    assert.equal(inputs.a.onDestroy, "stop");
    assert.equal(inputs.b.deleteTimeoutSeconds, 30);
    assert.equal(inputs.c.deleteTimeoutSeconds, undefined, "left to timeoutSeconds");
    assert.equal(inputs.c.onDestroy, undefined, "left to the provider's default");
    assert.throws(
      () => customTimeoutSeconds("ServiceRunState", "a", { delete: "later" }, ["delete"]),
      /customTimeouts.delete "later" is not a duration/,
    );
  });

  it("fails at construction when no organizationId can be found, naming the config key and the variable", async () => {
    const previous = process.env.DBCLOUD_ORGANIZATION_ID;
    delete process.env.DBCLOUD_ORGANIZATION_ID;
    try {
      await assert.rejects(
        captureProgram(
          () => {
            new ReversePrivateEndpointDeletion("e", {
              serviceId: SERVICE,
              reversePrivateEndpointId: "rpe-1",
            });
          },
          { project: "defaults", stack: "test", config: {} },
        ),
        /ReversePrivateEndpointDeletion "e": organizationId is not set.*dbcloud:organizationId.*DBCLOUD_ORGANIZATION_ID/s,
      );
    } finally {
      if (previous !== undefined) process.env.DBCLOUD_ORGANIZATION_ID = previous;
    }
  });
});
