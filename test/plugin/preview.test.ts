import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { startEmulator, type Emulator } from "../../src/emulator";
import { DELETION, engineCalls, RUN_STATE, secret, UNKNOWN, urnOf } from "./engineCalls";
import {
  binCommand,
  PluginCallError,
  startFakeEngine,
  startPlugin,
  type PluginProcess,
} from "./pluginProcess";

/*
 * A preview never acts: a Create or Update with `preview=true`, or with an input not known yet
 * (the engine's placeholder, itself a well-formed uuid), sends nothing and answers with unknowns;
 * the placeholder never reaches the API as an id, not even from state that holds it.
 */

const ORG = randomUUID();

describe("plugin: preview never acts", function () {
  let emulator: Emulator;
  let engine: Awaited<ReturnType<typeof startFakeEngine>>;
  let plugin: PluginProcess;
  let calls: ReturnType<typeof engineCalls>;

  before(async function () {
    emulator = await startEmulator();
    engine = await startFakeEngine();
    plugin = await startPlugin(binCommand(), { engine: engine.address });
    calls = engineCalls(plugin);
    await calls.configure({
      apiUrl: emulator.url,
      apiKeyId: emulator.keyId,
      apiKeySecret: secret(emulator.keySecret),
      organizationId: ORG,
      rateLimit: "off",
    });
  });

  after(async function () {
    await plugin?.stop();
    engine?.stop();
    await emulator?.close();
  });

  /** A stopped service and its ServiceRunState's checked inputs asking it to run. */
  async function stoppedService(name: string) {
    const serviceId = randomUUID();
    emulator.addService({ organizationId: ORG, id: serviceId, name, state: "stopped" });
    const urn = urnOf(RUN_STATE, name);
    const { inputs } = await calls.check(urn, {}, { serviceId, state: "running" });
    return { serviceId, urn, inputs };
  }

  const COMPUTED = ["observedState", "serviceName", "databaseVersion", "endpoints", "lastCommand"];

  it("a Create with preview=true sends nothing and answers its inputs, the rest unknown", async function () {
    const { serviceId, urn, inputs } = await stoppedService("previewed");
    const seen = emulator.requests.length;
    const created = await calls.create(urn, inputs, 600, true);
    assert.equal(emulator.requests.length, seen, "no request at all");
    assert.equal(emulator.service(serviceId)?.state, "stopped");
    assert.equal(created.id, "");
    for (const key of COMPUTED) assert.equal(created.properties[key], UNKNOWN, key);
    for (const key of Object.keys(inputs)) assert.deepEqual(created.properties[key], inputs[key], key);
  });

  it("an Update with preview=true sends nothing and answers with unknowns", async function () {
    const { serviceId, urn, inputs } = await stoppedService("previewed-update");
    const olds = { ...inputs, state: "stopped", observedState: "stopped" };
    const seen = emulator.requests.length;
    const updated = await calls.update(serviceId, urn, olds, inputs, 0, true);
    assert.equal(emulator.requests.length, seen);
    assert.equal(emulator.service(serviceId)?.state, "stopped");
    assert.equal(updated.properties.state, "running");
    for (const key of COMPUTED) assert.equal(updated.properties[key], UNKNOWN, key);
  });

  it("a Create or Update with an input not known yet sends nothing, preview flag or not", async function () {
    const { serviceId, urn, inputs } = await stoppedService("unknown-input");
    const seen = emulator.requests.length;
    const unknownService = await calls.create(urn, { ...inputs, serviceId: UNKNOWN });
    assert.equal(unknownService.properties.serviceId, UNKNOWN);
    assert.equal(unknownService.properties.observedState, UNKNOWN);
    const unknownState = await calls.update(serviceId, urn, inputs, { ...inputs, state: UNKNOWN });
    assert.equal(unknownState.properties.lastCommand, UNKNOWN);
    const deletion = urnOf(DELETION, "pipes");
    const endpoint = {
      organizationId: ORG,
      serviceId,
      reversePrivateEndpointId: UNKNOWN,
      timeoutSeconds: 300,
    };
    await calls.create(deletion, endpoint);
    assert.equal(emulator.requests.length, seen, "no request at all");
    assert.equal(emulator.service(serviceId)?.state, "stopped");
  });

  it("state that holds the placeholder as an id: the client refuses it, and nothing is sent", async function () {
    const seen = emulator.requests.length;
    const props = {
      organizationId: ORG,
      serviceId: UNKNOWN,
      reversePrivateEndpointId: "rpe-1",
      timeoutSeconds: 300,
    };
    const deleting = await calls
      .delete(`${ORG}/${UNKNOWN}/rpe-1`, urnOf(DELETION, "hand-edited"), props)
      .then(
        () => assert.fail("the delete should have been refused"),
        (error: PluginCallError) => error,
      );
    assert.match(deleting.message, /serviceId is not known yet/);
    const reading = await calls
      .read(UNKNOWN, urnOf(RUN_STATE, "hand-edited"), {
        organizationId: ORG,
        serviceId: UNKNOWN,
        state: "running",
      })
      .then(
        () => assert.fail("the read should have been refused"),
        (error: PluginCallError) => error,
      );
    assert.match(reading.message, /serviceId is not known yet/);
    assert.equal(emulator.requests.length, seen);
  });
});
