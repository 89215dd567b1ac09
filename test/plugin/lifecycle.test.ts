import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { basicAuthorization } from "../../src/api/redact";
import { leakForms } from "../helpers/leakForms";
import { assertNoSecret, DELETION, RUN_STATE, secret, SECRET_KEY, UNKNOWN, urnOf } from "./engineCalls";
import { PluginCallError } from "./pluginProcess";
import { pluginStack } from "./pluginStack";

/*
 * The installed package's bin `pulumi-resource-dbcloud`, started as the engine starts it and
 * driven over gRPC with the engine's messages against the emulator: Configure with a wrapped
 * secret, Check with unknowns, both resources' lifecycles with the engine's timeouts, getService.
 * Each test searches its answers for the key secret, and after it stdout, stderr and the engine's
 * log.
 */

const ORG = randomUUID();
const KEY_ID = "plugin-key-1";
const SECRET = 'PLUGINsecr3t"/+&= va1ue';
const FORMS = leakForms(SECRET, basicAuthorization(KEY_ID, SECRET).slice("Basic ".length));

describe("plugin: lifecycle through the bin", function () {
  const stack = pluginStack({
    organizationId: ORG,
    emulator: { keyId: KEY_ID, keySecret: SECRET, transitions: { starting: 300, stopping: 300 } },
    env: { DBCLOUD_TIME_SCALE: "0.02" },
  });
  /** The answer, once no form of the key secret shows in it. */
  const clean = <T>(answer: T): T => {
    assertNoSecret(JSON.stringify(answer) ?? "", FORMS, "an answer");
    return answer;
  };
  /** Nothing but the port on stdout, and no form of the key secret in stderr or the engine's log. */
  function assertPrintedClean() {
    assert.deepEqual(stack.plugin.stdout, []);
    assertNoSecret(stack.plugin.stderr.join("\n"), FORMS, "stderr");
    assertNoSecret(JSON.stringify(stack.engine.lines), FORMS, "the engine log");
  }

  afterEach(assertPrintedClean);

  it("Configure accepts secrets and declines previews", function () {
    assert.deepEqual(stack.configured, { acceptSecrets: true, supportsPreview: false });
  });

  it("Check lets unknowns through, fills defaults, and reports failures by property", async function () {
    const urn = urnOf(RUN_STATE, "svc");
    const preview = clean(await stack.calls.check(urn, {}, { serviceId: UNKNOWN, state: "running" }));
    assert.deepEqual(preview.failures, []);
    assert.equal(preview.inputs.serviceId, UNKNOWN);
    assert.equal(preview.inputs.organizationId, ORG, "the configured default organization");
    assert.equal(preview.inputs.timeoutSeconds, 1200);
    const bad = clean(await stack.calls.check(urn, {}, { serviceId: "nope", state: "paused" }));
    assert.deepEqual(bad.failures.map((f) => f.property).sort(), ["serviceId", "state"]);
  });

  it("Check keeps an input the program marked secret wrapped", async function () {
    const serviceId = randomUUID();
    const checked = clean(
      await stack.calls.check(urnOf(RUN_STATE, "s"), {}, { serviceId: secret(serviceId), state: "running" }),
    );
    assert.deepEqual(checked.failures, []);
    assert.deepEqual(checked.inputs.serviceId, secret(serviceId));
  });

  it("ServiceRunState: create, refresh with no diff, update to stopped, destroy with onDestroy stop", async function () {
    const serviceId = randomUUID();
    stack.emulator.addService({ organizationId: ORG, id: serviceId, name: "nightly", state: "stopped" });
    const urn = urnOf(RUN_STATE, "nightly");
    const { inputs } = clean(
      await stack.calls.check(urn, {}, { serviceId, state: "running", onDestroy: "stop" }),
    );
    const created = clean(await stack.calls.create(urn, inputs, 60));
    assert.equal(created.id, serviceId);
    assert.equal(created.properties.observedState, "running");
    assert.equal(created.properties.serviceName, "nightly");
    assert.equal(
      created.properties.timeoutSeconds,
      1200,
      "the engine's timeout bounds the wait, not the input",
    );
    assert.equal(stack.emulator.service(serviceId)?.state, "running");
    assert.ok(
      stack.engine.lines.some((line) => line.urn === urn && line.message.includes("sent start")),
      "progress in the engine's log",
    );

    const refreshed = clean(await stack.calls.read(serviceId, urn, created.properties));
    assert.equal(refreshed.id, serviceId);
    assert.equal(refreshed.inputs, undefined, "a refresh keeps the program's inputs");
    const same = clean(await stack.calls.diff(serviceId, urn, refreshed.properties, inputs));
    assert.equal(same.changes, "none");

    const night = clean(await stack.calls.check(urn, inputs, { ...inputs, state: "stopped" })).inputs;
    const planned = clean(await stack.calls.diff(serviceId, urn, refreshed.properties, night));
    assert.deepEqual([planned.changes, planned.diffs, planned.replaces], ["some", ["state"], []]);
    const updated = clean(await stack.calls.update(serviceId, urn, refreshed.properties, night, 60));
    assert.equal(updated.properties.observedState, "stopped");
    assert.equal(stack.emulator.service(serviceId)?.state, "stopped");

    const moved = clean(
      await stack.calls.diff(serviceId, urn, updated.properties, { ...night, serviceId: randomUUID() }),
    );
    assert.deepEqual([moved.changes, moved.replaces, moved.detailed.serviceId], ["some", ["serviceId"], 5]);

    stack.emulator.setState(serviceId, "running");
    await stack.calls.delete(serviceId, urn, updated.properties, 30);
    assert.equal(
      stack.emulator.service(serviceId)?.state,
      "stopped",
      "onDestroy stop, bounded by the engine's delete timeout",
    );
  });

  it("a stop on destroy waits no longer than the engine's delete timeout", async function () {
    const serviceId = randomUUID();
    stack.emulator.addService({ organizationId: ORG, id: serviceId, state: "running" });
    stack.emulator.setTransitions({ stopping: 60_000 });
    try {
      const props = {
        organizationId: ORG,
        serviceId,
        state: "running",
        onDestroy: "stop",
        timeoutSeconds: 1200,
      };
      const failed = await stack.calls.delete(serviceId, urnOf(RUN_STATE, "slow"), props, 1).then(
        () => undefined,
        (error: PluginCallError) => error,
      );
      assert.ok(failed, "the delete failed");
      clean(failed.message);
      assert.match(failed.message, /waiting at most 1s/);
    } finally {
      stack.emulator.setTransitions({ stopping: 300 });
    }
  });

  it("ReversePrivateEndpointDeletion: create adopts, refresh keeps, destroy deletes within the engine's timeout", async function () {
    const serviceId = randomUUID();
    stack.emulator.addService({ organizationId: ORG, id: serviceId, reversePrivateEndpointIds: ["rpe-1"] });
    const urn = urnOf(DELETION, "pipes");
    const { inputs, failures } = clean(
      await stack.calls.check(urn, {}, { serviceId, reversePrivateEndpointId: "rpe-1" }),
    );
    assert.deepEqual(failures, []);
    const created = clean(await stack.calls.create(urn, inputs, 5));
    assert.equal(created.id, `${ORG}/${serviceId}/rpe-1`);
    assert.ok(stack.emulator.hasEndpoint(serviceId, "rpe-1"), "creating deletes nothing");
    const refreshed = clean(await stack.calls.read(created.id, urn, created.properties));
    assert.deepEqual(refreshed.properties, created.properties);
    await stack.calls.delete(created.id, urn, created.properties, 5);
    assert.ok(!stack.emulator.hasEndpoint(serviceId, "rpe-1"));
    const deletes = stack.emulator.requests.filter((r) => r.serviceId === serviceId && r.method === "DELETE");
    assert.equal(deletes.length, 1);
  });

  it("Invoke getService: the service's fields, its encryption key as a secret, bad ids as failures", async function () {
    const serviceId = randomUUID();
    stack.emulator.addService({
      organizationId: ORG,
      id: serviceId,
      name: "vault",
      fields: { encryptionKey: "k-123" },
    });
    const { result, failures } = clean(await stack.calls.invoke("dbcloud:index:getService", { serviceId }));
    assert.deepEqual(failures, []);
    assert.equal(result.name, "vault");
    assert.deepEqual(result.encryptionKey, secret("k-123"));
    assert.ok(!(typeof result.name === "object" && result.name && SECRET_KEY in result.name));
    const bad = clean(await stack.calls.invoke("dbcloud:index:getService", { serviceId: "x" }));
    assert.deepEqual(
      bad.failures.map((f) => f.property),
      ["serviceId"],
    );
  });

  it("a server echoing the credentials leaks no form of them", async function () {
    const serviceId = randomUUID();
    stack.emulator.addService({ organizationId: ORG, id: serviceId });
    stack.emulator.injectFault({ route: "getService", echoSecret: "service-field" });
    try {
      clean(
        await stack.calls
          .invoke("dbcloud:index:getService", { serviceId })
          .catch((error: Error) => error.message),
      );
    } finally {
      stack.emulator.clearFaults();
    }
    const echoed = stack.emulator.requests.filter((r) => r.serviceId === serviceId && r.fault !== undefined);
    assert.ok(echoed.length > 0, "the server echoed the credentials");
  });
});
