import assert from "node:assert/strict";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { startEmulator, type Emulator } from "../../src/emulator";
import { ServiceRunState } from "../../src";
import { captureProgram, type CapturedResource } from "../../src/engine-driver/capture";
import { EngineStack } from "../../src/engine-driver/stack";
import { startProviderHost, type ProviderHost } from "../../src/engine-driver/host";

/*
 * The product the way Pulumi runs it: examples/basic captured under mocks (the real serialized
 * providers), then the real dynamic-provider host driven over gRPC through preview, up,
 * refresh after drift, up, destroy. No Pulumi CLI, no network beyond loopback.
 */

const ROOT = join(__dirname, "..", "..");
const PROJECT = "dbcloud-example";
const ORG = "5f0c3a52-8d1e-4b7a-9c63-0e2f7d4a1b90";
const ANALYTICS = "6a0f8e21-3b4c-4d5e-8f90-a1b2c3d4e5f6";
const ENDPOINT = "rpe-0001";
const SECRET_KEYS = ["dbcloud:apiKeySecret"];

function baseConfig(emulator: Emulator): Record<string, string> {
  return {
    "dbcloud:apiUrl": emulator.url,
    "dbcloud:apiKeyId": emulator.keyId,
    "dbcloud:apiKeySecret": emulator.keySecret,
    "dbcloud:organizationId": ORG,
    "dbcloud:rateLimit": "10/1s",
  };
}

function exampleConfig(emulator: Emulator, state: "running" | "stopped"): Record<string, string> {
  return {
    ...baseConfig(emulator),
    [`${PROJECT}:services`]: JSON.stringify([{ name: "analytics", serviceId: ANALYTICS, state }]),
    [`${PROJECT}:reversePrivateEndpoint`]: JSON.stringify({ serviceId: ANALYTICS, endpointId: ENDPOINT }),
  };
}

function captureExample(config: Record<string, string>): Promise<CapturedResource[]> {
  return captureProgram(join(ROOT, "examples", "basic", "index.ts"), {
    project: PROJECT,
    stack: "test",
    config,
    secretKeys: SECRET_KEYS,
    freshUnder: join(ROOT, "examples", "basic"),
  });
}

const byName = (stack: EngineStack, name: string) => stack.state().find((entry) => entry.name === name);

describe("engine: the example stack through the real provider host", function () {
  this.timeout(60_000);
  let emulator: Emulator;
  let host: ProviderHost;
  let stack: EngineStack;
  let resources: CapturedResource[];

  before(async () => {
    emulator = await startEmulator({
      transitions: { starting: 600, stopping: 1_000 },
      visibilityLagMs: 100,
      rateLimit: { requests: 10, windowMs: 1_000 },
      services: [
        {
          organizationId: ORG,
          id: ANALYTICS,
          name: "analytics",
          state: "stopped",
          reversePrivateEndpointIds: [ENDPOINT],
        },
      ],
    });
    resources = await captureExample(exampleConfig(emulator, "running"));
    host = await startProviderHost({ cwd: ROOT, project: PROJECT, env: { DBCLOUD_TIME_SCALE: "0.02" } });
    stack = new EngineStack(host, { config: exampleConfig(emulator, "running"), secretKeys: SECRET_KEYS });
  });

  after(async () => {
    await host?.stop();
    await emulator?.close();
  });

  it("captures both dynamic resources with their type tokens and a provider holding no credential", () => {
    const types = resources.map((r) => r.type).sort();
    assert.deepEqual(types, [
      "pulumi-nodejs:dynamic/dbcloud:ReversePrivateEndpointDeletion",
      "pulumi-nodejs:dynamic/dbcloud:ServiceRunState",
    ]);
    for (const resource of resources) {
      const provider = resource.inputs.__provider;
      assert.equal(typeof provider, "string");
      assert.equal(resource.providerIsSecret, false, "no secret was captured, so the provider is not secret");
      for (const secret of [emulator.keySecret, emulator.keyId, emulator.url]) {
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

  it("1. preview of a new stack plans creates and sends no API request", async () => {
    const result = await stack.preview(resources);
    assert.ok(result.ok);
    assert.deepEqual(
      result.steps.map((s) => s.kind),
      ["create", "create"],
    );
    assert.equal(emulator.requests.length, 0);
  });

  it("2. up starts the stopped service, waits, and records the endpoint", async () => {
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
    assert.equal(endpoint.id, `${ORG}/${ANALYTICS}/${ENDPOINT}`);
    assert.equal(emulator.service(ANALYTICS)?.state, "running");
    assert.ok(emulator.hasEndpoint(ANALYTICS, ENDPOINT), "creating the deletion resource deletes nothing");
    const patches = emulator.requests.filter((r) => r.method === "PATCH");
    assert.deepEqual(
      patches.map((r) => r.command),
      ["start"],
    );
    assert.equal(
      emulator.requests.filter((r) => r.status === 429).length,
      0,
      "the client budget kept under the limit",
    );
  });

  it("3. an out-of-band stop shows as drift on refresh, and the next up converges", async () => {
    emulator.setState(ANALYTICS, "stopped");
    const refreshed = await stack.refresh();
    const analytics = refreshed.steps.find((s) => s.name === "analytics")!;
    assert.equal(analytics.kind, "drift");
    assert.equal(refreshed.steps.find((s) => s.name === "pipes-endpoint")!.kind, "read");
    assert.equal(byName(stack, "analytics")!.outputs.observedState, "stopped");

    const preview = await stack.preview(resources);
    assert.equal(preview.steps.find((s) => s.name === "analytics")!.kind, "update");

    const before = emulator.requests.length;
    const result = await stack.up(resources);
    assert.ok(result.ok);
    assert.equal(byName(stack, "analytics")!.outputs.observedState, "running");
    assert.deepEqual(
      emulator.requests
        .slice(before)
        .filter((r) => r.method === "PATCH")
        .map((r) => r.command),
      ["start"],
    );
  });

  it("4. changing the desired state to stopped stops it, with progress lines on the host's stdout", async () => {
    const stopped = await captureExample(exampleConfig(emulator, "stopped"));
    const preview = await stack.preview(stopped);
    assert.equal(preview.steps.find((s) => s.name === "analytics")!.kind, "update");
    const linesBefore = host.stdout.length;
    const result = await stack.up(stopped);
    assert.ok(result.ok, JSON.stringify(result.steps));
    assert.equal(byName(stack, "analytics")!.outputs.observedState, "stopped");
    const lines = host.stdout.slice(linesBefore);
    assert.ok(
      lines.some((l) => /sent stop \(was running\)/.test(l)),
      lines.join("\n"),
    );
    assert.ok(
      lines.some((l) => /service "analytics" .*: stopping, target stopped, [\d.]+s elapsed/.test(l)),
      `a progress line naming the service, state, target and elapsed time:\n${lines.join("\n")}`,
    );
    resources = stopped;
  });

  it("5. destroy deletes the endpoint exactly once and leaves the service as it is", async () => {
    const before = emulator.requests.length;
    const result = await stack.destroy();
    assert.ok(result.ok);
    assert.equal(stack.state().length, 0);
    const requests = emulator.requests.slice(before);
    assert.deepEqual(
      requests.map((r) => `${r.method} ${r.status}`),
      ["DELETE 200"],
    );
    assert.equal(emulator.hasEndpoint(ANALYTICS, ENDPOINT), false);
    assert.equal(emulator.service(ANALYTICS)?.state, "stopped");
  });

  it("7. the key secret never appears in state, provider output or errors", () => {
    const token = Buffer.from(`${emulator.keyId}:${emulator.keySecret}`).toString("base64");
    const everything = [stack.serializedState(), ...host.stdout, ...host.stderr].join("\n");
    assert.ok(!everything.includes(emulator.keySecret));
    assert.ok(!everything.includes(token));
  });
});

describe("engine: check failures, init failures and secrets through the real host", function () {
  this.timeout(60_000);
  const SERVICE = "7b1c9d32-4e5f-4a6b-9c7d-8e9fa0b1c2d3";
  let emulator: Emulator;
  let host: ProviderHost;

  before(async () => {
    emulator = await startEmulator({
      transitions: { starting: 2_500 },
      services: [{ organizationId: ORG, id: SERVICE, name: "slow", state: "stopped" }],
    });
    host = await startProviderHost({
      cwd: ROOT,
      project: "engine-test",
      env: { DBCLOUD_TIME_SCALE: "0.02" },
    });
  });

  after(async () => {
    await host?.stop();
    await emulator?.close();
  });

  const capture = (program: () => void) =>
    captureProgram(program, {
      project: "engine-test",
      stack: "test",
      config: baseConfig(emulator),
      secretKeys: SECRET_KEYS,
    });

  it("1. bad inputs come back from preview as check failures naming each property, before any request", async () => {
    const resources = await capture(() => {
      new ServiceRunState("bad", {
        serviceId: "not-a-uuid",
        state: "paused" as "running",
        timeoutSeconds: -5,
      });
    });
    const stack = new EngineStack(host, { config: baseConfig(emulator), secretKeys: SECRET_KEYS });
    const result = await stack.preview(resources);
    assert.equal(result.ok, false);
    const failures = result.steps[0].failures!;
    assert.deepEqual(failures.map((f) => f.property).sort(), ["serviceId", "state", "timeoutSeconds"]);
    assert.match(failures.find((f) => f.property === "state")!.reason, /"running" or "stopped".*paused/);
    assert.equal(emulator.requests.length, 0);
  });

  it("6. a deadline passed after the start was accepted records the resource; the next up finishes the job", async () => {
    const resources = await capture(() => {
      new ServiceRunState("slow", { serviceId: SERVICE, state: "running", timeoutSeconds: 0.5 });
    });
    const stack = new EngineStack(host, { config: baseConfig(emulator), secretKeys: SECRET_KEYS });
    const first = await stack.up(resources);
    assert.equal(first.ok, false);
    assert.equal(first.steps[0].kind, "failed");
    assert.match(first.steps[0].error!, /Timed out .* to be running after sending start: it is starting/);
    const recorded = byName(stack, "slow");
    assert.ok(recorded, "the resource is in the state despite the failure");
    assert.equal(recorded.id, SERVICE);
    assert.ok(recorded.initErrors?.length);
    assert.equal(recorded.outputs.observedState, "starting");
    assert.equal(typeof recorded.outputs.__provider, "string", "init failure properties carry __provider");

    // Once the service got there, the next up carries on from the recorded state: no second start.
    while (emulator.service(SERVICE)?.state !== "running") await new Promise((r) => setTimeout(r, 100));
    const before = emulator.requests.length;
    const second = await stack.up(resources);
    assert.ok(second.ok, JSON.stringify(second.steps));
    assert.equal(second.steps[0].kind, "update");
    assert.equal(byName(stack, "slow")!.outputs.observedState, "running");
    assert.equal(byName(stack, "slow")!.initErrors, undefined);
    assert.equal(emulator.requests.slice(before).filter((r) => r.method === "PATCH").length, 0);
    await stack.destroy();
  });

  it("7. with a secret input and a refused key secret, the key secret reaches no state, output or error", async () => {
    const resources = await capture(() => {
      new ServiceRunState("secretive", { serviceId: pulumi.secret(SERVICE), state: "running" });
    });
    assert.equal(resources[0].providerIsSecret, false, "a secret input does not make the provider secret");
    // A host configured once per provider text: the wrong secret only applies to a new host.
    const other = await startProviderHost({
      cwd: ROOT,
      project: "engine-test",
      env: { DBCLOUD_TIME_SCALE: "0.02" },
    });
    try {
      const failing = new EngineStack(other, {
        config: { ...baseConfig(emulator), "dbcloud:apiKeySecret": "wrong-secret-value-123" },
        secretKeys: SECRET_KEYS,
      });
      const result = await failing.up(resources);
      assert.equal(result.ok, false);
      assert.match(result.steps[0].error!, /401/);
      const everything = [
        result.steps[0].error!,
        failing.serializedState(),
        ...other.stdout,
        ...other.stderr,
      ].join("\n");
      assert.ok(!everything.includes("wrong-secret-value-123"), "the secret is not echoed");
      assert.ok(
        !everything.includes(Buffer.from(`${emulator.keyId}:wrong-secret-value-123`).toString("base64")),
      );
    } finally {
      await other.stop();
    }
  });
});
