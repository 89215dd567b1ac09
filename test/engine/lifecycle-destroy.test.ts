import assert from "node:assert/strict";
import {
  byName,
  captureExample,
  exampleConfig,
  lastSeq,
  requestsSince,
  seedAnalytics,
  exampleStackHost,
  newStack,
} from "../helpers/exampleStack";

/*
 * Destroy, hand-edited state and the key secret through the real dynamic-provider host, on
 * examples/basic's stack (helpers/exampleStack.ts). Each test builds the stack it needs.
 */

describe("engine: the example stack through the real provider host", function () {
  this.timeout(60_000);
  const example = exampleStackHost();

  it("destroy deletes the endpoint exactly once and leaves the service as it is", async () => {
    const ids = seedAnalytics(example.emulator, "stopped");
    const config = exampleConfig(example.emulator, ids, "stopped");
    const stack = newStack(example.host, config);
    // Precondition: a converged stack, the service stopped as declared and the endpoint recorded.
    const converged = await stack.up(await captureExample(config));
    assert.ok(converged.ok, JSON.stringify(converged.steps));
    assert.equal(stack.state().length, 2);
    assert.ok(example.emulator.hasEndpoint(ids.serviceId, ids.endpointId));

    const mark = lastSeq(example.emulator);
    const result = await stack.destroy();
    assert.ok(result.ok);
    assert.equal(stack.state().length, 0);
    const requests = requestsSince(example.emulator, mark);
    assert.deepEqual(
      requests.map((r) => `${r.method} ${r.status}`),
      ["DELETE 200"],
    );
    assert.equal(requests[0].serviceId, ids.serviceId);
    assert.equal(requests[0].endpointId, ids.endpointId);
    assert.equal(example.emulator.hasEndpoint(ids.serviceId, ids.endpointId), false);
    assert.equal(example.emulator.service(ids.serviceId)?.state, "stopped");
  });

  it("state edited by hand so the id names one service and endpoint, the properties another: destroy and refresh refuse, nothing sent", async () => {
    const ids = seedAnalytics(example.emulator, "running");
    const config = exampleConfig(example.emulator, ids, "running");
    const stack = newStack(example.host, config);
    const converged = await stack.up(await captureExample(config));
    assert.ok(converged.ok, JSON.stringify(converged.steps));
    const other = seedAnalytics(example.emulator, "running");
    const analytics = byName(stack, "analytics")!;
    const endpoint = byName(stack, "pipes-endpoint")!;
    // `pulumi state edit`: the properties now name the other service (and endpoint); the ids do not.
    const editedRun = { ...analytics.outputs, serviceId: other.serviceId, onDestroy: "stop" };
    const editedEndpoint = {
      ...endpoint.outputs,
      serviceId: other.serviceId,
      reversePrivateEndpointId: other.endpointId,
    };

    const mark = lastSeq(example.emulator);
    await assert.rejects(example.host.delete(endpoint.id, endpoint.urn, editedEndpoint), (error: Error) => {
      assert.match(error.message, /ReversePrivateEndpointDeletion delete refused/);
      assert.ok(error.message.includes(`endpoint "${ids.endpointId}"`), error.message);
      assert.ok(error.message.includes(`endpoint "${other.endpointId}"`), error.message);
      return true;
    });
    await assert.rejects(
      example.host.delete(analytics.id, analytics.urn, editedRun),
      /ServiceRunState delete .*refused/,
    );
    await assert.rejects(
      example.host.read(analytics.id, analytics.urn, editedRun),
      /ServiceRunState read refused/,
    );
    await assert.rejects(example.host.read(endpoint.id, endpoint.urn, editedEndpoint), /read refused/);
    assert.deepEqual(
      requestsSince(example.emulator, mark),
      [],
      "no request: nothing deleted, stopped or read",
    );
    for (const service of [ids, other]) {
      assert.ok(example.emulator.hasEndpoint(service.serviceId, service.endpointId));
      assert.equal(example.emulator.service(service.serviceId)?.state, "running");
    }
    await stack.destroy();
  });

  it("the key secret never appears in state, provider output or errors through up, refresh and destroy", async () => {
    const ids = seedAnalytics(example.emulator, "stopped");
    const config = exampleConfig(example.emulator, ids, "running");
    const resources = await captureExample(config);
    const stack = newStack(example.host, config);
    const token = Buffer.from(`${example.emulator.keyId}:${example.emulator.keySecret}`).toString("base64");
    const linesBefore = example.host.stdout.length;
    const leaks = () => {
      const everything = [stack.serializedState(), ...example.host.stdout, ...example.host.stderr].join("\n");
      assert.ok(!everything.includes(example.emulator.keySecret));
      assert.ok(!everything.includes(token));
    };

    const up = await stack.up(resources);
    assert.ok(up.ok, JSON.stringify(up.steps));
    assert.ok(example.host.stdout.length > linesBefore, "the up printed progress lines to search");
    leaks();
    example.emulator.setState(ids.serviceId, "stopped");
    await stack.refresh();
    leaks();
    const destroyed = await stack.destroy();
    assert.ok(destroyed.ok, JSON.stringify(destroyed.steps));
    leaks();
  });
});
