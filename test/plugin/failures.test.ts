import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { startEmulator, type Emulator } from "../../src/emulator";
import { engineCalls, RUN_STATE, secret, urnOf } from "./engineCalls";
import {
  binCommand,
  PluginCallError,
  startFakeEngine,
  startPlugin,
  type PluginProcess,
} from "./pluginProcess";

/*
 * How the plugin fails: a create that sent its command and then ran out of the engine's time is
 * recorded (ErrorResourceInitFailed, as the dynamic provider's partial failures are), and so is one
 * cancelled after its command was accepted; Cancel ends a wait of many minutes at once. Cancel is
 * for the whole process, so it comes last (test/plugin/cancel.test.ts holds each kind of wait).
 */

const ORG = randomUUID();

describe("plugin: partial failures and Cancel", function () {
  let emulator: Emulator;
  let engine: Awaited<ReturnType<typeof startFakeEngine>>;
  let plugin: PluginProcess;
  let calls: ReturnType<typeof engineCalls>;

  before(async function () {
    // Starting takes ten minutes: only the engine's timeout or Cancel ends a create sooner.
    emulator = await startEmulator({ transitions: { starting: 600_000 } });
    engine = await startFakeEngine();
    plugin = await startPlugin(binCommand(), { engine: engine.address, env: { DBCLOUD_TIME_SCALE: "0.02" } });
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

  /** A stopped service's ServiceRunState asked to run: its checked inputs. */
  async function stoppedService(name: string) {
    const serviceId = randomUUID();
    emulator.addService({ organizationId: ORG, id: serviceId, name, state: "stopped" });
    const { inputs } = await calls.check(urnOf(RUN_STATE, name), {}, { serviceId, state: "running" });
    return { serviceId, urn: urnOf(RUN_STATE, name), inputs };
  }

  it("a create out of the engine's time after its start was accepted is recorded with its outputs", async function () {
    const { serviceId, urn, inputs } = await stoppedService("late");
    const failed = await calls.create(urn, inputs, 1).then(
      () => assert.fail("the create should have timed out"),
      (error: PluginCallError) => error,
    );
    assert.match(failed.message, /Timed out after .* after sending start/);
    const recorded = failed.initFailure;
    assert.ok(recorded, "ErrorResourceInitFailed in the status details");
    assert.equal(recorded.id, serviceId);
    assert.deepEqual(recorded.reasons, [failed.message]);
    assert.equal(recorded.properties.observedState, "starting");
    assert.equal((recorded.properties.lastCommand as { command: string }).command, "start");
    assert.equal(recorded.properties.timeoutSeconds, 1200, "the program's input, not the engine's timeout");
    assert.ok(!("__provider" in recorded.properties));
    for (const key of Object.keys(inputs)) assert.deepEqual(recorded.properties[key], inputs[key], key);
  });

  it("Cancel ends a create waiting for a ten-minute start, records it as a deadline does, and ends every wait after it", async function () {
    this.timeout(20_000);
    const { serviceId, urn, inputs } = await stoppedService("cancelled");
    const creating = calls.create(urn, inputs).then(
      () => assert.fail("the create should have been cancelled"),
      (error: PluginCallError) => error,
    );
    while (!emulator.requests.some((r) => r.serviceId === serviceId && r.method === "PATCH")) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await plugin.call("cancel", new Empty());
    const cancelled = await creating;
    assert.match(cancelled.message, /^Cancelled .* after sending start: it was starting when last seen/);
    const recorded = cancelled.initFailure;
    assert.ok(recorded, "the accepted start is recorded: ErrorResourceInitFailed in the status details");
    assert.equal(recorded.id, serviceId);
    assert.equal(recorded.properties.observedState, "starting");
    assert.equal((recorded.properties.lastCommand as { command: string }).command, "start");
    assert.equal(recorded.properties.timeoutSeconds, 1200);

    const later = await stoppedService("after-cancel");
    const refused = await calls.create(later.urn, later.inputs).catch((error: PluginCallError) => error);
    assert.match((refused as PluginCallError).message, /^Cancelled/);
  });
});
