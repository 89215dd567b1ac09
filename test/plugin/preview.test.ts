import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { DELETION, RUN_STATE, UNKNOWN, urnOf } from "./engineCalls";
import { PluginCallError } from "./pluginProcess";
import { pluginStack, stoppedService } from "./pluginStack";

/*
 * A preview never acts: a Create or Update with `preview=true`, or with an input not known yet
 * (the engine's placeholder, itself a well-formed uuid), sends nothing and answers with unknowns;
 * the placeholder never reaches the API as an id, not even from state that holds it.
 */

const ORG = randomUUID();

describe("plugin: preview never acts", function () {
  const stack = pluginStack({ organizationId: ORG });

  const stoppedAs = (name: string) => stoppedService(stack, ORG, name);

  const COMPUTED = ["observedState", "serviceName", "databaseVersion", "endpoints", "lastCommand"];

  it("a Create with preview=true sends nothing and answers its inputs, the rest unknown", async function () {
    const { serviceId, urn, inputs } = await stoppedAs("previewed");
    const seen = stack.emulator.requests.length;
    const created = await stack.calls.create(urn, inputs, 600, true);
    assert.equal(stack.emulator.requests.length, seen, "no request at all");
    assert.equal(stack.emulator.service(serviceId)?.state, "stopped");
    assert.equal(created.id, "");
    for (const key of COMPUTED) assert.equal(created.properties[key], UNKNOWN, key);
    for (const key of Object.keys(inputs)) assert.deepEqual(created.properties[key], inputs[key], key);
  });

  it("an Update with preview=true sends nothing and answers with unknowns", async function () {
    const { serviceId, urn, inputs } = await stoppedAs("previewed-update");
    const olds = { ...inputs, state: "stopped", observedState: "stopped" };
    const seen = stack.emulator.requests.length;
    const updated = await stack.calls.update(serviceId, urn, olds, inputs, 0, true);
    assert.equal(stack.emulator.requests.length, seen);
    assert.equal(stack.emulator.service(serviceId)?.state, "stopped");
    assert.equal(updated.properties.state, "running");
    for (const key of COMPUTED) assert.equal(updated.properties[key], UNKNOWN, key);
  });

  it("a Create or Update with an input not known yet sends nothing, preview flag or not", async function () {
    const { serviceId, urn, inputs } = await stoppedAs("unknown-input");
    const seen = stack.emulator.requests.length;
    const unknownService = await stack.calls.create(urn, { ...inputs, serviceId: UNKNOWN });
    assert.equal(unknownService.properties.serviceId, UNKNOWN);
    assert.equal(unknownService.properties.observedState, UNKNOWN);
    const unknownState = await stack.calls.update(serviceId, urn, inputs, { ...inputs, state: UNKNOWN });
    assert.equal(unknownState.properties.lastCommand, UNKNOWN);
    const deletion = urnOf(DELETION, "pipes");
    const endpoint = {
      organizationId: ORG,
      serviceId,
      reversePrivateEndpointId: UNKNOWN,
      timeoutSeconds: 300,
    };
    await stack.calls.create(deletion, endpoint);
    assert.equal(stack.emulator.requests.length, seen, "no request at all");
    assert.equal(stack.emulator.service(serviceId)?.state, "stopped");
  });

  it("state that holds the placeholder as an id: the client refuses it, and nothing is sent", async function () {
    const seen = stack.emulator.requests.length;
    const props = {
      organizationId: ORG,
      serviceId: UNKNOWN,
      reversePrivateEndpointId: "rpe-1",
      timeoutSeconds: 300,
    };
    const deleting = await stack.calls
      .delete(`${ORG}/${UNKNOWN}/rpe-1`, urnOf(DELETION, "hand-edited"), props)
      .then(
        () => assert.fail("the delete should have been refused"),
        (error: PluginCallError) => error,
      );
    assert.match(deleting.message, /serviceId is not known yet/);
    const reading = await stack.calls
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
    assert.equal(stack.emulator.requests.length, seen);
  });
});
