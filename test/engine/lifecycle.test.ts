import assert from "node:assert/strict";
import {
  byName,
  captureExample,
  exampleConfig,
  lastSeq,
  requestsAbout,
  requestsSince,
  seedAnalytics,
  exampleStackHost,
  newStack,
  ORG,
} from "../helpers/exampleStack";

/*
 * The product the way Pulumi runs it: examples/basic captured under mocks (the real serialized
 * providers), then the real dynamic-provider host driven over gRPC through preview, up and
 * refresh (helpers/exampleStack.ts). No Pulumi CLI, no network beyond loopback. Each test stands
 * alone: its own stack and its own service and endpoint, with any earlier stack state it needs
 * built in the test itself.
 */

describe("engine: the example stack through the real provider host", function () {
  this.timeout(60_000);
  const example = exampleStackHost();

  it("captures both dynamic resources with their type tokens and a provider holding no credential", async () => {
    const ids = seedAnalytics(example.emulator, "stopped");
    const resources = await captureExample(exampleConfig(example.emulator, ids, "running"));
    const types = resources.map((r) => r.type).sort();
    assert.deepEqual(types, [
      "pulumi-nodejs:dynamic/dbcloud:ReversePrivateEndpointDeletion",
      "pulumi-nodejs:dynamic/dbcloud:ServiceRunState",
    ]);
    for (const resource of resources) {
      const provider = resource.inputs.__provider;
      assert.equal(typeof provider, "string");
      assert.equal(resource.providerIsSecret, false, "no secret was captured, so the provider is not secret");
      for (const secret of [example.emulator.keySecret, example.emulator.keyId, example.emulator.url]) {
        assert.ok(
          !(provider as string).includes(secret),
          `the serialized provider must not contain ${secret}`,
        );
      }
      console.log(
        `      serialized provider of ${resource.name}: ${(provider as string).length} bytes (in-repo, by reference)`,
      );
    }
  });

  it("preview of a new stack plans creates and sends no API request", async () => {
    const ids = seedAnalytics(example.emulator, "stopped");
    const config = exampleConfig(example.emulator, ids, "running");
    const resources = await captureExample(config);
    const stack = newStack(example.host, config);

    const mark = lastSeq(example.emulator);
    const result = await stack.preview(resources);
    assert.ok(result.ok);
    assert.deepEqual(
      result.steps.map((s) => s.kind),
      ["create", "create"],
    );
    assert.deepEqual(requestsSince(example.emulator, mark), [], "no request of any kind during the preview");
    assert.deepEqual(requestsAbout(example.emulator, ids.serviceId), []);
  });

  it("up on a new stack starts the stopped service, waits, and records the endpoint", async () => {
    const ids = seedAnalytics(example.emulator, "stopped");
    const config = exampleConfig(example.emulator, ids, "running");
    const resources = await captureExample(config);
    const stack = newStack(example.host, config);

    const result = await stack.up(resources);
    assert.ok(result.ok, JSON.stringify(result.steps));
    const analytics = byName(stack, "analytics")!;
    assert.equal(analytics.outputs.observedState, "running");
    assert.equal(analytics.outputs.serviceName, "analytics");
    assert.equal(typeof analytics.outputs.databaseVersion, "string");
    assert.ok((analytics.outputs.databaseVersion as string).length > 0);
    assert.ok(
      Array.isArray(analytics.outputs.endpoints) && (analytics.outputs.endpoints as unknown[]).length > 0,
    );
    assert.equal(typeof analytics.outputs.__provider, "string", "state keeps the serialized provider");
    const endpoint = byName(stack, "pipes-endpoint")!;
    assert.equal(endpoint.id, `${ORG}/${ids.serviceId}/${ids.endpointId}`);
    assert.equal(example.emulator.service(ids.serviceId)?.state, "running");
    assert.ok(
      example.emulator.hasEndpoint(ids.serviceId, ids.endpointId),
      "creating the deletion resource deletes nothing",
    );
    const requests = requestsAbout(example.emulator, ids.serviceId);
    assert.deepEqual(
      requests.filter((r) => r.method === "PATCH").map((r) => r.command),
      ["start"],
    );
    assert.equal(
      requests.filter((r) => r.status === 429).length,
      0,
      "the client budget kept under the limit",
    );
  });

  it("an out-of-band stop of a converged service shows as drift on refresh, and the next up converges", async () => {
    const ids = seedAnalytics(example.emulator, "running");
    const config = exampleConfig(example.emulator, ids, "running");
    const resources = await captureExample(config);
    const stack = newStack(example.host, config);
    // Precondition: a converged stack, the service running as declared.
    const converged = await stack.up(resources);
    assert.ok(converged.ok, JSON.stringify(converged.steps));
    assert.equal(byName(stack, "analytics")!.outputs.observedState, "running");

    example.emulator.setState(ids.serviceId, "stopped");
    const refreshed = await stack.refresh();
    const analytics = refreshed.steps.find((s) => s.name === "analytics")!;
    assert.equal(analytics.kind, "drift");
    assert.equal(refreshed.steps.find((s) => s.name === "pipes-endpoint")!.kind, "read");
    assert.equal(byName(stack, "analytics")!.outputs.observedState, "stopped");

    const preview = await stack.preview(resources);
    assert.equal(preview.steps.find((s) => s.name === "analytics")!.kind, "update");

    const mark = lastSeq(example.emulator);
    const result = await stack.up(resources);
    assert.ok(result.ok);
    assert.equal(byName(stack, "analytics")!.outputs.observedState, "running");
    assert.deepEqual(
      requestsSince(example.emulator, mark)
        .filter((r) => r.method === "PATCH")
        .map((r) => `${r.serviceId} ${r.command}`),
      [`${ids.serviceId} start`],
    );
  });

  it("changing the desired state of a running service to stopped stops it, with progress lines on the host's stdout", async () => {
    const ids = seedAnalytics(example.emulator, "running");
    const runningConfig = exampleConfig(example.emulator, ids, "running");
    const stack = newStack(example.host, runningConfig);
    // Precondition: a converged stack, the service running as declared.
    const converged = await stack.up(await captureExample(runningConfig));
    assert.ok(converged.ok, JSON.stringify(converged.steps));
    assert.equal(byName(stack, "analytics")!.outputs.observedState, "running");

    const stopped = await captureExample(exampleConfig(example.emulator, ids, "stopped"));
    const preview = await stack.preview(stopped);
    assert.equal(preview.steps.find((s) => s.name === "analytics")!.kind, "update");
    const linesBefore = example.host.stdout.length;
    const result = await stack.up(stopped);
    assert.ok(result.ok, JSON.stringify(result.steps));
    assert.equal(byName(stack, "analytics")!.outputs.observedState, "stopped");
    assert.equal(example.emulator.service(ids.serviceId)?.state, "stopped");
    const lines = example.host.stdout.slice(linesBefore);
    const label = `service "analytics" \\(${ids.serviceId.slice(0, 8)}…\\)`;
    assert.ok(
      lines.some((l) => new RegExp(`${label}: sent stop \\(was running\\)`).test(l)),
      lines.join("\n"),
    );
    assert.ok(
      lines.some((l) => new RegExp(`${label}: stopping, target stopped, [\\d.]+s elapsed`).test(l)),
      `a progress line naming the service, state, target and elapsed time:\n${lines.join("\n")}`,
    );
  });
});
