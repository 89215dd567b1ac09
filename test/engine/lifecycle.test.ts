import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { startEmulator, type Emulator, type RequestLogEntry } from "../../src/emulator";
import { ServiceRunState } from "../../src";
import { captureProgram, type CapturedResource } from "../../src/engine-driver/capture";
import { EngineStack } from "../../src/engine-driver/stack";
import { startProviderHost, type ProviderHost } from "../../src/engine-driver/host";
import { providerConfig } from "../helpers/providerConfig";

/*
 * The product the way Pulumi runs it: examples/basic captured under mocks (the real serialized
 * providers), then the real dynamic-provider host driven over gRPC through preview, up, refresh
 * and destroy. No Pulumi CLI, no network beyond loopback.
 *
 * Each test stands alone: its own stack (a fresh EngineStack) and its own service and endpoint,
 * seeded in the emulator under fresh ids, with any earlier stack state it needs built in the test
 * itself. The emulator and the provider host are shared (a host applies Configure once per
 * provider text, so the emulator URL stays the same for it); requests are read by service id or
 * over the window of the test's own step.
 */

const ROOT = join(__dirname, "..", "..");
const PROJECT = "dbcloud-example";
const ORG = "5f0c3a52-8d1e-4b7a-9c63-0e2f7d4a1b90";
const SECRET_KEYS = ["dbcloud:apiKeySecret"];

interface Ids {
  serviceId: string;
  endpointId: string;
}

function baseConfig(emulator: Emulator): Record<string, string> {
  return providerConfig(emulator, { organizationId: ORG, rateLimit: "10/1s" });
}

function exampleConfig(emulator: Emulator, ids: Ids, state: "running" | "stopped"): Record<string, string> {
  return {
    ...baseConfig(emulator),
    [`${PROJECT}:services`]: JSON.stringify([{ name: "analytics", serviceId: ids.serviceId, state }]),
    [`${PROJECT}:reversePrivateEndpoint`]: JSON.stringify({
      serviceId: ids.serviceId,
      endpointId: ids.endpointId,
    }),
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

/** A service named "analytics" under a fresh id, with one reverse private endpoint. */
function seedAnalytics(emulator: Emulator, state: "running" | "stopped"): Ids {
  const ids = { serviceId: randomUUID(), endpointId: `rpe-${randomUUID().slice(0, 8)}` };
  emulator.addService({
    organizationId: ORG,
    id: ids.serviceId,
    name: "analytics",
    state,
    reversePrivateEndpointIds: [ids.endpointId],
  });
  return ids;
}

/** The sequence number of the last logged request: what came after it is the window of a step. */
const lastSeq = (emulator: Emulator) => emulator.requests.reduce((max, r) => Math.max(max, r.seq), 0);
const requestsSince = (emulator: Emulator, seq: number): RequestLogEntry[] =>
  emulator.requests.filter((r) => r.seq > seq);
const requestsAbout = (emulator: Emulator, serviceId: string): RequestLogEntry[] =>
  emulator.requests.filter((r) => r.serviceId === serviceId);

const byName = (stack: EngineStack, name: string) => stack.state().find((entry) => entry.name === name);

describe("engine: the example stack through the real provider host", function () {
  this.timeout(60_000);
  let emulator: Emulator;
  let host: ProviderHost;

  before(async () => {
    emulator = await startEmulator({
      transitions: { starting: 600, stopping: 1_000 },
      visibilityLagMs: 100,
      rateLimit: { requests: 10, windowMs: 1_000 },
    });
    host = await startProviderHost({ cwd: ROOT, project: PROJECT, env: { DBCLOUD_TIME_SCALE: "0.02" } });
  });

  after(async () => {
    await host?.stop();
    await emulator?.close();
  });

  const newStack = (config: Record<string, string>) =>
    new EngineStack(host, { config, secretKeys: SECRET_KEYS });

  it("captures both dynamic resources with their type tokens and a provider holding no credential", async () => {
    const ids = seedAnalytics(emulator, "stopped");
    const resources = await captureExample(exampleConfig(emulator, ids, "running"));
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

  it("preview of a new stack plans creates and sends no API request", async () => {
    const ids = seedAnalytics(emulator, "stopped");
    const config = exampleConfig(emulator, ids, "running");
    const resources = await captureExample(config);
    const stack = newStack(config);

    const mark = lastSeq(emulator);
    const result = await stack.preview(resources);
    assert.ok(result.ok);
    assert.deepEqual(
      result.steps.map((s) => s.kind),
      ["create", "create"],
    );
    assert.deepEqual(requestsSince(emulator, mark), [], "no request of any kind during the preview");
    assert.deepEqual(requestsAbout(emulator, ids.serviceId), []);
  });

  it("up on a new stack starts the stopped service, waits, and records the endpoint", async () => {
    const ids = seedAnalytics(emulator, "stopped");
    const config = exampleConfig(emulator, ids, "running");
    const resources = await captureExample(config);
    const stack = newStack(config);

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
    assert.equal(emulator.service(ids.serviceId)?.state, "running");
    assert.ok(
      emulator.hasEndpoint(ids.serviceId, ids.endpointId),
      "creating the deletion resource deletes nothing",
    );
    const requests = requestsAbout(emulator, ids.serviceId);
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
    const ids = seedAnalytics(emulator, "running");
    const config = exampleConfig(emulator, ids, "running");
    const resources = await captureExample(config);
    const stack = newStack(config);
    // Precondition: a converged stack, the service running as declared.
    const converged = await stack.up(resources);
    assert.ok(converged.ok, JSON.stringify(converged.steps));
    assert.equal(byName(stack, "analytics")!.outputs.observedState, "running");

    emulator.setState(ids.serviceId, "stopped");
    const refreshed = await stack.refresh();
    const analytics = refreshed.steps.find((s) => s.name === "analytics")!;
    assert.equal(analytics.kind, "drift");
    assert.equal(refreshed.steps.find((s) => s.name === "pipes-endpoint")!.kind, "read");
    assert.equal(byName(stack, "analytics")!.outputs.observedState, "stopped");

    const preview = await stack.preview(resources);
    assert.equal(preview.steps.find((s) => s.name === "analytics")!.kind, "update");

    const mark = lastSeq(emulator);
    const result = await stack.up(resources);
    assert.ok(result.ok);
    assert.equal(byName(stack, "analytics")!.outputs.observedState, "running");
    assert.deepEqual(
      requestsSince(emulator, mark)
        .filter((r) => r.method === "PATCH")
        .map((r) => `${r.serviceId} ${r.command}`),
      [`${ids.serviceId} start`],
    );
  });

  it("changing the desired state of a running service to stopped stops it, with progress lines on the host's stdout", async () => {
    const ids = seedAnalytics(emulator, "running");
    const runningConfig = exampleConfig(emulator, ids, "running");
    const stack = newStack(runningConfig);
    // Precondition: a converged stack, the service running as declared.
    const converged = await stack.up(await captureExample(runningConfig));
    assert.ok(converged.ok, JSON.stringify(converged.steps));
    assert.equal(byName(stack, "analytics")!.outputs.observedState, "running");

    const stopped = await captureExample(exampleConfig(emulator, ids, "stopped"));
    const preview = await stack.preview(stopped);
    assert.equal(preview.steps.find((s) => s.name === "analytics")!.kind, "update");
    const linesBefore = host.stdout.length;
    const result = await stack.up(stopped);
    assert.ok(result.ok, JSON.stringify(result.steps));
    assert.equal(byName(stack, "analytics")!.outputs.observedState, "stopped");
    assert.equal(emulator.service(ids.serviceId)?.state, "stopped");
    const lines = host.stdout.slice(linesBefore);
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

  it("destroy deletes the endpoint exactly once and leaves the service as it is", async () => {
    const ids = seedAnalytics(emulator, "stopped");
    const config = exampleConfig(emulator, ids, "stopped");
    const stack = newStack(config);
    // Precondition: a converged stack, the service stopped as declared and the endpoint recorded.
    const converged = await stack.up(await captureExample(config));
    assert.ok(converged.ok, JSON.stringify(converged.steps));
    assert.equal(stack.state().length, 2);
    assert.ok(emulator.hasEndpoint(ids.serviceId, ids.endpointId));

    const mark = lastSeq(emulator);
    const result = await stack.destroy();
    assert.ok(result.ok);
    assert.equal(stack.state().length, 0);
    const requests = requestsSince(emulator, mark);
    assert.deepEqual(
      requests.map((r) => `${r.method} ${r.status}`),
      ["DELETE 200"],
    );
    assert.equal(requests[0].serviceId, ids.serviceId);
    assert.equal(requests[0].endpointId, ids.endpointId);
    assert.equal(emulator.hasEndpoint(ids.serviceId, ids.endpointId), false);
    assert.equal(emulator.service(ids.serviceId)?.state, "stopped");
  });

  it("state edited by hand so the id names one service and endpoint, the properties another: destroy and refresh refuse, nothing sent", async () => {
    const ids = seedAnalytics(emulator, "running");
    const config = exampleConfig(emulator, ids, "running");
    const stack = newStack(config);
    const converged = await stack.up(await captureExample(config));
    assert.ok(converged.ok, JSON.stringify(converged.steps));
    const other = seedAnalytics(emulator, "running");
    const analytics = byName(stack, "analytics")!;
    const endpoint = byName(stack, "pipes-endpoint")!;
    // `pulumi state edit`: the properties now name the other service (and endpoint); the ids do not.
    const editedRun = { ...analytics.outputs, serviceId: other.serviceId, onDestroy: "stop" };
    const editedEndpoint = {
      ...endpoint.outputs,
      serviceId: other.serviceId,
      reversePrivateEndpointId: other.endpointId,
    };

    const mark = lastSeq(emulator);
    await assert.rejects(host.delete(endpoint.id, endpoint.urn, editedEndpoint), (error: Error) => {
      assert.match(error.message, /ReversePrivateEndpointDeletion delete refused/);
      assert.ok(error.message.includes(`endpoint "${ids.endpointId}"`), error.message);
      assert.ok(error.message.includes(`endpoint "${other.endpointId}"`), error.message);
      return true;
    });
    await assert.rejects(
      host.delete(analytics.id, analytics.urn, editedRun),
      /ServiceRunState delete .*refused/,
    );
    await assert.rejects(host.read(analytics.id, analytics.urn, editedRun), /ServiceRunState read refused/);
    await assert.rejects(host.read(endpoint.id, endpoint.urn, editedEndpoint), /read refused/);
    assert.deepEqual(requestsSince(emulator, mark), [], "no request: nothing deleted, stopped or read");
    for (const service of [ids, other]) {
      assert.ok(emulator.hasEndpoint(service.serviceId, service.endpointId));
      assert.equal(emulator.service(service.serviceId)?.state, "running");
    }
    await stack.destroy();
  });

  it("the key secret never appears in state, provider output or errors through up, refresh and destroy", async () => {
    const ids = seedAnalytics(emulator, "stopped");
    const config = exampleConfig(emulator, ids, "running");
    const resources = await captureExample(config);
    const stack = newStack(config);
    const token = Buffer.from(`${emulator.keyId}:${emulator.keySecret}`).toString("base64");
    const linesBefore = host.stdout.length;
    const leaks = () => {
      const everything = [stack.serializedState(), ...host.stdout, ...host.stderr].join("\n");
      assert.ok(!everything.includes(emulator.keySecret));
      assert.ok(!everything.includes(token));
    };

    const up = await stack.up(resources);
    assert.ok(up.ok, JSON.stringify(up.steps));
    assert.ok(host.stdout.length > linesBefore, "the up printed progress lines to search");
    leaks();
    emulator.setState(ids.serviceId, "stopped");
    await stack.refresh();
    leaks();
    const destroyed = await stack.destroy();
    assert.ok(destroyed.ok, JSON.stringify(destroyed.steps));
    leaks();
  });
});

describe("engine: check failures, init failures and secrets through the real host", function () {
  this.timeout(60_000);
  let emulator: Emulator;
  let host: ProviderHost;

  before(async () => {
    emulator = await startEmulator({ transitions: { starting: 2_500 } });
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

  /** A stopped service under a fresh id. */
  const seedStopped = (name: string) =>
    emulator.addService({ organizationId: ORG, name, state: "stopped" }).id;

  it("bad inputs come back from preview as check failures naming each property, before any request", async () => {
    const resources = await capture(() => {
      new ServiceRunState("bad", {
        serviceId: "not-a-uuid",
        state: "paused" as "running",
        timeoutSeconds: -5,
      });
    });
    const stack = new EngineStack(host, { config: baseConfig(emulator), secretKeys: SECRET_KEYS });
    const mark = lastSeq(emulator);
    const result = await stack.preview(resources);
    assert.equal(result.ok, false);
    const failures = result.steps[0].failures!;
    assert.deepEqual(failures.map((f) => f.property).sort(), ["serviceId", "state", "timeoutSeconds"]);
    assert.match(failures.find((f) => f.property === "state")!.reason, /"running" or "stopped".*paused/);
    assert.deepEqual(requestsSince(emulator, mark), [], "no request of any kind during the preview");
  });

  it("a deadline passed after the start was accepted records the resource; the next up finishes the job", async () => {
    const service = seedStopped("slow");
    const resources = await capture(() => {
      new ServiceRunState("slow", { serviceId: service, state: "running", timeoutSeconds: 0.5 });
    });
    const stack = new EngineStack(host, { config: baseConfig(emulator), secretKeys: SECRET_KEYS });
    const first = await stack.up(resources);
    assert.equal(first.ok, false);
    assert.equal(first.steps[0].kind, "failed");
    assert.match(first.steps[0].error!, /Timed out .* to be running after sending start: it is starting/);
    const recorded = byName(stack, "slow");
    assert.ok(recorded, "the resource is in the state despite the failure");
    assert.equal(recorded.id, service);
    assert.ok(recorded.initErrors?.length);
    assert.equal(recorded.outputs.observedState, "starting");
    assert.equal(typeof recorded.outputs.__provider, "string", "init failure properties carry __provider");
    // The command travels through the host in the init failure's properties, and on to the next up.
    const last = recorded.outputs.lastCommand as { command: string; sentAt: string; seen: boolean };
    assert.equal(last.command, "start");
    assert.ok(Number.isFinite(Date.parse(last.sentAt)), last.sentAt);
    assert.equal(last.seen, true, "a poll showed starting");

    // Once the service got there, the next up carries on from the recorded state: no second start.
    while (emulator.service(service)?.state !== "running") await new Promise((r) => setTimeout(r, 100));
    const mark = lastSeq(emulator);
    const second = await stack.up(resources);
    assert.ok(second.ok, JSON.stringify(second.steps));
    assert.equal(second.steps[0].kind, "update");
    assert.equal(byName(stack, "slow")!.outputs.observedState, "running");
    assert.equal(byName(stack, "slow")!.initErrors, undefined);
    assert.deepEqual(byName(stack, "slow")!.outputs.lastCommand, last, "kept: this up sent nothing");
    assert.equal(requestsSince(emulator, mark).filter((r) => r.method === "PATCH").length, 0);
    assert.deepEqual(
      requestsAbout(emulator, service)
        .filter((r) => r.method === "PATCH")
        .map((r) => r.command),
      ["start"],
      "one start over both ups",
    );
    await stack.destroy();
  });

  it("with a secret input and a refused key secret, the key secret reaches no state, output or error", async () => {
    const service = seedStopped("secretive");
    const resources = await capture(() => {
      new ServiceRunState("secretive", { serviceId: pulumi.secret(service), state: "running" });
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
