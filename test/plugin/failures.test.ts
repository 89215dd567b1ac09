import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { PluginCallError } from "./pluginProcess";
import { pluginStack, stoppedService } from "./pluginStack";

/*
 * How the plugin fails: a create that sent its command and then ran out of the engine's time is
 * recorded (ErrorResourceInitFailed, as the dynamic provider's partial failures are), and so is one
 * cancelled after its command was accepted; Cancel ends a wait of many minutes at once. Cancel is
 * for the whole process, so it comes last (test/plugin/cancel.test.ts holds each kind of wait).
 */

const ORG = randomUUID();

describe("plugin: partial failures and Cancel", function () {
  const stack = pluginStack({
    organizationId: ORG,
    // Starting takes ten minutes: only the engine's timeout or Cancel ends a create sooner.
    emulator: { transitions: { starting: 600_000 } },
    env: { DBCLOUD_TIME_SCALE: "0.02" },
  });

  const stoppedAs = (name: string) => stoppedService(stack, ORG, name);

  it("a create out of the engine's time after its start was accepted is recorded with its outputs", async function () {
    const { serviceId, urn, inputs } = await stoppedAs("late");
    const failed = await stack.calls.create(urn, inputs, 1).then(
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
    const { serviceId, urn, inputs } = await stoppedAs("cancelled");
    const creating = stack.calls.create(urn, inputs).then(
      () => assert.fail("the create should have been cancelled"),
      (error: PluginCallError) => error,
    );
    while (!stack.emulator.requests.some((r) => r.serviceId === serviceId && r.method === "PATCH")) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await stack.cancel();
    const cancelled = await creating;
    assert.match(cancelled.message, /^Cancelled .* after sending start: it was starting when last seen/);
    const recorded = cancelled.initFailure;
    assert.ok(recorded, "the accepted start is recorded: ErrorResourceInitFailed in the status details");
    assert.equal(recorded.id, serviceId);
    assert.equal(recorded.properties.observedState, "starting");
    assert.equal((recorded.properties.lastCommand as { command: string }).command, "start");
    assert.equal(recorded.properties.timeoutSeconds, 1200);

    const later = await stoppedAs("after-cancel");
    const refused = await stack.calls
      .create(later.urn, later.inputs)
      .catch((error: PluginCallError) => error);
    assert.match((refused as PluginCallError).message, /^Cancelled/);
  });
});
