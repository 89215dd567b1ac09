import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { basicAuthorization } from "../../src/api/redact";
import { startEmulator, type Emulator } from "../../src/emulator";
import { leakForms } from "../helpers/leakForms";
import {
  assertNoSecret,
  DELETION,
  engineCalls,
  RUN_STATE,
  secret,
  SECRET_KEY,
  UNKNOWN,
  urnOf,
} from "./engineCalls";
import {
  binCommand,
  PluginCallError,
  startFakeEngine,
  startPlugin,
  type PluginProcess,
} from "./pluginProcess";

/*
 * The installed package's bin `pulumi-resource-dbcloud`, started as the engine starts it and
 * driven over gRPC with the engine's messages against the emulator: Configure with a wrapped
 * secret, Check with unknowns, both resources' lifecycles with the engine's timeouts, getService.
 * Every answer, stdout line, stderr line and engine log line is searched for the key secret.
 */

const ORG = randomUUID();
const KEY_ID = "plugin-key-1";
const SECRET = 'PLUGINsecr3t"/+&= va1ue';
const FORMS = leakForms(SECRET, basicAuthorization(KEY_ID, SECRET).slice("Basic ".length));

describe("plugin: lifecycle through the bin", function () {
  let emulator: Emulator;
  let engine: Awaited<ReturnType<typeof startFakeEngine>>;
  let plugin: PluginProcess;
  let calls: ReturnType<typeof engineCalls>;
  const answers: unknown[] = [];
  const keep = <T>(answer: T): T => (answers.push(answer), answer);

  before(async function () {
    emulator = await startEmulator({
      keyId: KEY_ID,
      keySecret: SECRET,
      transitions: { starting: 300, stopping: 300 },
    });
    engine = await startFakeEngine();
    plugin = await startPlugin(binCommand(), { engine: engine.address, env: { DBCLOUD_TIME_SCALE: "0.02" } });
    calls = engineCalls(plugin);
    const configured = await calls.configure({
      apiUrl: emulator.url,
      apiKeyId: KEY_ID,
      apiKeySecret: secret(SECRET),
      organizationId: ORG,
      rateLimit: "off",
    });
    assert.deepEqual(configured, { acceptSecrets: true, supportsPreview: false });
  });

  after(async function () {
    await plugin?.stop();
    engine?.stop();
    await emulator?.close();
  });

  it("Check lets unknowns through, fills defaults, and reports failures by property", async function () {
    const urn = urnOf(RUN_STATE, "svc");
    const preview = keep(await calls.check(urn, {}, { serviceId: UNKNOWN, state: "running" }));
    assert.deepEqual(preview.failures, []);
    assert.equal(preview.inputs.serviceId, UNKNOWN);
    assert.equal(preview.inputs.organizationId, ORG, "the configured default organization");
    assert.equal(preview.inputs.timeoutSeconds, 1200);
    const bad = keep(await calls.check(urn, {}, { serviceId: "nope", state: "paused" }));
    assert.deepEqual(bad.failures.map((f) => f.property).sort(), ["serviceId", "state"]);
  });

  it("Check keeps an input the program marked secret wrapped", async function () {
    const serviceId = randomUUID();
    const checked = keep(
      await calls.check(urnOf(RUN_STATE, "s"), {}, { serviceId: secret(serviceId), state: "running" }),
    );
    assert.deepEqual(checked.failures, []);
    assert.deepEqual(checked.inputs.serviceId, secret(serviceId));
  });

  it("ServiceRunState: create, refresh with no diff, update to stopped, destroy with onDestroy stop", async function () {
    const serviceId = randomUUID();
    emulator.addService({ organizationId: ORG, id: serviceId, name: "nightly", state: "stopped" });
    const urn = urnOf(RUN_STATE, "nightly");
    const { inputs } = keep(await calls.check(urn, {}, { serviceId, state: "running", onDestroy: "stop" }));
    const created = keep(await calls.create(urn, inputs, 60));
    assert.equal(created.id, serviceId);
    assert.equal(created.properties.observedState, "running");
    assert.equal(created.properties.serviceName, "nightly");
    assert.equal(
      created.properties.timeoutSeconds,
      1200,
      "the engine's timeout bounds the wait, not the input",
    );
    assert.equal(emulator.service(serviceId)?.state, "running");
    assert.ok(
      engine.lines.some((line) => line.urn === urn && line.message.includes("sent start")),
      "progress in the engine's log",
    );

    const refreshed = keep(await calls.read(serviceId, urn, created.properties));
    assert.equal(refreshed.id, serviceId);
    assert.equal(refreshed.inputs, undefined, "a refresh keeps the program's inputs");
    const same = keep(await calls.diff(serviceId, urn, refreshed.properties, inputs));
    assert.equal(same.changes, "none");

    const night = keep(await calls.check(urn, inputs, { ...inputs, state: "stopped" })).inputs;
    const planned = keep(await calls.diff(serviceId, urn, refreshed.properties, night));
    assert.deepEqual([planned.changes, planned.diffs, planned.replaces], ["some", ["state"], []]);
    const updated = keep(await calls.update(serviceId, urn, refreshed.properties, night, 60));
    assert.equal(updated.properties.observedState, "stopped");
    assert.equal(emulator.service(serviceId)?.state, "stopped");

    const moved = keep(
      await calls.diff(serviceId, urn, updated.properties, { ...night, serviceId: randomUUID() }),
    );
    assert.deepEqual([moved.changes, moved.replaces, moved.detailed.serviceId], ["some", ["serviceId"], 5]);

    emulator.setState(serviceId, "running");
    await calls.delete(serviceId, urn, updated.properties, 30);
    assert.equal(
      emulator.service(serviceId)?.state,
      "stopped",
      "onDestroy stop, bounded by the engine's delete timeout",
    );
  });

  it("a stop on destroy waits no longer than the engine's delete timeout", async function () {
    const serviceId = randomUUID();
    emulator.addService({ organizationId: ORG, id: serviceId, state: "running" });
    emulator.setTransitions({ stopping: 60_000 });
    try {
      const props = {
        organizationId: ORG,
        serviceId,
        state: "running",
        onDestroy: "stop",
        timeoutSeconds: 1200,
      };
      const failed = await calls.delete(serviceId, urnOf(RUN_STATE, "slow"), props, 1).then(
        () => undefined,
        (error: PluginCallError) => error,
      );
      assert.ok(failed, "the delete failed");
      keep(failed.message);
      assert.match(failed.message, /waiting at most 1s/);
    } finally {
      emulator.setTransitions({ stopping: 300 });
    }
  });

  it("ReversePrivateEndpointDeletion: create adopts, refresh keeps, destroy deletes within the engine's timeout", async function () {
    const serviceId = randomUUID();
    emulator.addService({ organizationId: ORG, id: serviceId, reversePrivateEndpointIds: ["rpe-1"] });
    const urn = urnOf(DELETION, "pipes");
    const { inputs, failures } = keep(
      await calls.check(urn, {}, { serviceId, reversePrivateEndpointId: "rpe-1" }),
    );
    assert.deepEqual(failures, []);
    const created = keep(await calls.create(urn, inputs, 5));
    assert.equal(created.id, `${ORG}/${serviceId}/rpe-1`);
    assert.ok(emulator.hasEndpoint(serviceId, "rpe-1"), "creating deletes nothing");
    const refreshed = keep(await calls.read(created.id, urn, created.properties));
    assert.deepEqual(refreshed.properties, created.properties);
    await calls.delete(created.id, urn, created.properties, 5);
    assert.ok(!emulator.hasEndpoint(serviceId, "rpe-1"));
    const deletes = emulator.requests.filter((r) => r.serviceId === serviceId && r.method === "DELETE");
    assert.equal(deletes.length, 1);
  });

  it("Invoke getService: the service's fields, its encryption key as a secret, bad ids as failures", async function () {
    const serviceId = randomUUID();
    emulator.addService({
      organizationId: ORG,
      id: serviceId,
      name: "vault",
      fields: { encryptionKey: "k-123" },
    });
    const { result, failures } = keep(await calls.invoke("dbcloud:index:getService", { serviceId }));
    assert.deepEqual(failures, []);
    assert.equal(result.name, "vault");
    assert.deepEqual(result.encryptionKey, secret("k-123"));
    assert.ok(!(typeof result.name === "object" && result.name && SECRET_KEY in result.name));
    const bad = keep(await calls.invoke("dbcloud:index:getService", { serviceId: "x" }));
    assert.deepEqual(
      bad.failures.map((f) => f.property),
      ["serviceId"],
    );
  });

  it("a server echoing the credentials leaks no form of them", async function () {
    const serviceId = randomUUID();
    emulator.addService({ organizationId: ORG, id: serviceId });
    emulator.injectFault({ route: "getService", echoSecret: "service-field" });
    try {
      keep(
        await calls.invoke("dbcloud:index:getService", { serviceId }).catch((error: Error) => error.message),
      );
    } finally {
      emulator.clearFaults();
    }
  });

  it("no form of the key secret in any answer or printed line, and nothing but the port on stdout", function () {
    assert.deepEqual(plugin.stdout, []);
    assertNoSecret(JSON.stringify(answers), FORMS, "an answer");
    assertNoSecret(plugin.stderr.join("\n"), FORMS, "stderr");
    assertNoSecret(JSON.stringify(engine.lines), FORMS, "the engine log");
  });
});
