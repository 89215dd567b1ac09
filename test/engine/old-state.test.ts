import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator, type Emulator } from "../../src/emulator";
import { captureProgram, type CapturedResource } from "../../src/engine-driver/capture";
import { startProviderHost, type ProviderHost } from "../../src/engine-driver/host";
import { stripSecrets } from "../../src/engine-driver/stack";
import { installUnpacked, pack } from "../helpers/packed";

/*
 * Stacks written by 0.1.0 keep working. test/fixtures/state-0.1.0.json is the state 0.1.0
 * wrote (made by test/fixtures/generate-state-0.1.0.ts from commit 9bdee42, its tarball
 * installed): each entry's outputs carry the `__provider` text 0.1.0 serialized, which
 * `pulumi refresh` and `pulumi destroy` run as stored. Here the CURRENT package is installed from
 * its tarball and the real provider host is driven with that state: read, diff, update, delete.
 */

type Props = Record<string, unknown>;
interface Entry {
  urn: string;
  type: string;
  name: string;
  id: string;
  inputs: Props;
  outputs: Props;
  initErrors?: string[];
}
interface Fixture {
  packageVersion: string;
  project: string;
  stack: string;
  organizationId: string;
  resources: Entry[];
}

const fixture = JSON.parse(
  readFileSync(join(__dirname, "..", "fixtures", "state-0.1.0.json"), "utf8"),
) as Fixture;
const entry = (name: string) => {
  const found = fixture.resources.find((r) => r.name === name);
  assert.ok(found, `fixture has ${name}`);
  return structuredClone(found);
};

/** What 0.1.0 promised in its outputs; the current version must keep reading and writing them. */
const SERVICE_RUN_STATE_OUTPUTS = [
  "__provider",
  "databaseVersion",
  "endpoints",
  "observedState",
  "organizationId",
  "serviceId",
  "serviceName",
  "state",
  "timeoutSeconds",
  "waitForState",
];
const ENDPOINT_DELETION_OUTPUTS = ["__provider", "organizationId", "reversePrivateEndpointId", "serviceId"];
/**
 * Outputs this version adds (adding is compatible; renaming or removing is not): every 0.1.0
 * name is kept, and the current outputs are exactly 0.1.0's plus these.
 */
const ADDED_SINCE_0_1_0: Record<string, string[]> = {
  ServiceRunState: ["lastCommand", "onDestroy"],
  ReversePrivateEndpointDeletion: ["timeoutSeconds"],
};
const currentNames = (e: { type: string; outputs: Record<string, unknown> }) =>
  [...new Set([...Object.keys(e.outputs), ...ADDED_SINCE_0_1_0[e.type.split(":").pop()!]])].sort();

describe("engine: state written by 0.1.0, run by the current package installed from its tarball", function () {
  this.timeout(120_000);
  const analytics = entry("analytics");
  const late = entry("late");
  const pipes = entry("pipes");
  const serviceId = (e: Entry) => e.outputs.serviceId as string;
  const endpointId = pipes.outputs.reversePrivateEndpointId as string;
  let project: string;
  let emulator: Emulator;
  let host: ProviderHost;
  let current: CapturedResource[];

  before(async () => {
    project = mkdtempSync(join(tmpdir(), "dbcloud-old-state-"));
    installUnpacked(project, pack(project).tarball);
    // The services as 0.1.0 left them: one running, one still starting after its deadline.
    emulator = await startEmulator({
      transitions: { starting: 400, stopping: 400 },
      services: [
        {
          organizationId: fixture.organizationId,
          id: serviceId(analytics),
          name: "analytics",
          state: "running",
          reversePrivateEndpointIds: [endpointId],
        },
        { organizationId: fixture.organizationId, id: serviceId(late), name: "late", state: "starting" },
      ],
    });
    const config = {
      "dbcloud:apiUrl": emulator.url,
      "dbcloud:apiKeyId": emulator.keyId,
      "dbcloud:apiKeySecret": emulator.keySecret,
      "dbcloud:organizationId": fixture.organizationId,
      "dbcloud:rateLimit": "10/1s",
    };
    // The same program, now run with the current package: the inputs a `pulumi up` after the upgrade sends.
    writeFileSync(
      join(project, "index.js"),
      `const { ServiceRunState, ReversePrivateEndpointDeletion } = require("pulumi-dbcloud");
new ServiceRunState("analytics", { serviceId: "${serviceId(analytics)}", state: "running" });
new ServiceRunState("late", { serviceId: "${serviceId(late)}", state: "running", timeoutSeconds: 60 });
new ReversePrivateEndpointDeletion("pipes", { serviceId: "${serviceId(pipes)}", reversePrivateEndpointId: "${endpointId}" });
`,
    );
    current = await captureProgram(join(project, "index.js"), {
      project: fixture.project,
      stack: fixture.stack,
      config,
      secretKeys: ["dbcloud:apiKeySecret"],
      freshUnder: project,
    });
    host = await startProviderHost({
      cwd: project,
      project: fixture.project,
      env: { DBCLOUD_TIME_SCALE: "0.05" },
    });
    await host.configure(config);
  });

  after(async () => {
    await host?.stop();
    await emulator?.close();
    if (project) rmSync(project, { recursive: true, force: true });
  });

  const inputsNow = (name: string) => stripSecrets(current.find((r) => r.name === name)!.inputs) as Props;
  const patches = () => emulator.requests.filter((r) => r.method === "PATCH");
  /** 0.1.0's stored outputs of a resource, as if a refresh had seen `observedState`. */
  const storedAs = (name: string, observedState?: string) => {
    const e = entry(name);
    if (observedState !== undefined) e.outputs.observedState = observedState;
    return e;
  };
  // Each test sets the services and the endpoint it starts from: none relies on another's run.
  const servicesAs = (analyticsState: string, lateState: string, endpoint = true) => {
    emulator.setState(serviceId(analytics), analyticsState);
    emulator.setState(serviceId(late), lateState);
    if (endpoint && !emulator.hasEndpoint(serviceId(pipes), endpointId))
      emulator.addEndpoint(serviceId(pipes), endpointId);
    emulator.clearRequests();
  };

  it("the fixture is what 0.1.0 wrote: providers by package name, the documented outputs, one init failure", () => {
    assert.equal(fixture.packageVersion, "0.1.0");
    for (const e of fixture.resources) {
      assert.match(e.outputs.__provider as string, /require\("pulumi-dbcloud\/provider"\)/);
      const expected = e.type.endsWith("ServiceRunState")
        ? SERVICE_RUN_STATE_OUTPUTS
        : ENDPOINT_DELETION_OUTPUTS;
      assert.deepEqual(Object.keys(e.outputs).sort(), expected, `${e.name} outputs`);
    }
    assert.equal(late.outputs.observedState, "starting");
    const same = fixture.resources.filter((e) => e.outputs.__provider === inputsNow(e.name).__provider);
    console.log(
      `      provider text identical to the current one: ${same.map((e) => e.name).join(", ") || "none"}`,
    );
    assert.match(late.initErrors?.[0] ?? "", /Timed out after 1s .* after sending start/);
  });

  it("read (refresh) with 0.1.0's stored provider: same ids, same output names, current observations", async () => {
    servicesAs("running", "running");
    for (const e of [analytics, pipes]) {
      const { id, properties } = await host.read(e.id, e.urn, e.outputs);
      assert.equal(id, e.id, `${e.name} still exists`);
      assert.deepEqual(Object.keys(properties).sort(), currentNames(e), `${e.name} output names`);
    }
    emulator.setState(serviceId(analytics), "stopped");
    const { properties } = await host.read(analytics.id, analytics.urn, analytics.outputs);
    assert.equal(properties.observedState, "stopped", "drift seen through the old provider text");
  });

  it("outputs an unreleased version wrote and this one does not (transitionSeconds) are dropped on read and update", async () => {
    servicesAs("running", "running");
    const outputs = { ...analytics.outputs, transitionSeconds: { start: [61.2], stop: [4.1] } };
    const read = await host.read(analytics.id, analytics.urn, outputs);
    assert.deepEqual(Object.keys(read.properties).sort(), currentNames(analytics));
    emulator.setState(serviceId(analytics), "stopped");
    const stopped = { ...outputs, observedState: "stopped" };
    const { properties } = await host.update(analytics.id, analytics.urn, stopped, inputsNow("analytics"));
    assert.equal(properties.observedState, "running");
    assert.deepEqual(Object.keys(properties).sort(), currentNames(analytics));
  });

  it("diff of 0.1.0 outputs against the upgraded program's inputs, and against the stored inputs", async () => {
    // 0.1.0 outputs that saw the service stopped do not satisfy `running`: an update.
    const drifted = storedAs("analytics", "stopped");
    const diff = await host.diff(drifted.id, drifted.urn, drifted.outputs, inputsNow("analytics"));
    assert.deepEqual([diff.changes, diff.replaces], ["some", []]);
    // The 0.1.0 provider text drives diff too when the inputs are the stored ones.
    const stored = await host.diff(pipes.id, pipes.urn, pipes.outputs, pipes.inputs);
    assert.deepEqual([stored.changes, stored.replaces], ["none", []]);
    const same = await host.diff(pipes.id, pipes.urn, pipes.outputs, inputsNow("pipes"));
    assert.deepEqual([same.changes, same.replaces], ["none", []]);
    const moved = await host.diff(pipes.id, pipes.urn, pipes.outputs, {
      ...inputsNow("pipes"),
      reversePrivateEndpointId: "rpe-other",
    });
    assert.equal(moved.changes, "some");
    assert.deepEqual(moved.replaces, ["reversePrivateEndpointId"]);
  });

  it("update of the drifted service from 0.1.0 outputs: one start, running, outputs under the same names", async () => {
    servicesAs("stopped", "running");
    const drifted = storedAs("analytics", "stopped");
    const { properties } = await host.update(
      drifted.id,
      drifted.urn,
      drifted.outputs,
      inputsNow("analytics"),
    );
    assert.equal(properties.observedState, "running");
    assert.equal(emulator.service(serviceId(analytics))?.state, "running");
    assert.deepEqual(
      patches().map((r) => r.command),
      ["start"],
    );
    assert.deepEqual(Object.keys(properties).sort(), currentNames(analytics));
  });

  it("update of the resource 0.1.0 recorded after its deadline carries on: no second start", async () => {
    // Still starting, as 0.1.0 left it when its deadline passed.
    servicesAs("running", "starting");
    emulator.setState(serviceId(late), "starting", { state: "running", afterMs: 400 });
    const { properties } = await host.update(late.id, late.urn, late.outputs, inputsNow("late"));
    assert.equal(properties.observedState, "running");
    assert.equal(properties.timeoutSeconds, 60);
    assert.deepEqual(patches(), [], "the start 0.1.0 sent was waited out, not repeated");
  });

  it("update driven by 0.1.0's stored provider text and inputs still converges", async () => {
    servicesAs("running", "stopped");
    const stored = { ...late.inputs, timeoutSeconds: 60 };
    const { properties } = await host.update(late.id, late.urn, late.outputs, stored);
    assert.equal(properties.observedState, "running");
    assert.deepEqual(
      patches().map((r) => r.command),
      ["start"],
    );
  });

  it("delete (destroy) with 0.1.0's stored provider: the endpoint is deleted once, the services are left as they are", async () => {
    servicesAs("running", "stopped");
    await host.delete(pipes.id, pipes.urn, pipes.outputs);
    assert.equal(emulator.hasEndpoint(serviceId(pipes), endpointId), false);
    assert.deepEqual(
      emulator.requests.map((r) => `${r.method} ${r.status}`),
      ["DELETE 200"],
    );
    emulator.clearRequests();
    await host.delete(analytics.id, analytics.urn, analytics.outputs);
    await host.delete(late.id, late.urn, late.outputs);
    assert.deepEqual(emulator.requests, [], "ServiceRunState delete makes no API call");
    assert.equal(emulator.service(serviceId(analytics))?.state, "running");
    assert.equal(emulator.service(serviceId(late))?.state, "stopped");
  });
});
