import assert from "node:assert/strict";
import * as provider from "../../src/provider";
import type { CapturedConsole } from "../helpers/captureConsole";
import type { ProviderFixture } from "../helpers/providerFixture";
import { PROVIDER_TEXT, runStateEachTest, type Props } from "../helpers/runStateEmulator";

/*
 * ServiceRunState's provider functions, called as the host calls them, against the emulator
 * over real HTTP (helpers/runStateEmulator.ts): converging in sequence, degraded and idle
 * states, visibility lag, lost commands, deadlines, drift, delete and outputs. Transitions last
 * a few hundred ms and the provider's waits are scaled down (DBCLOUD_TIME_SCALE), so each
 * scenario runs like a real one, in well under a second.
 */

describe("ServiceRunState against the emulator", function () {
  this.timeout(30_000);
  const rig = runStateEachTest();
  const { seed, checked, requests, patches } = rig;
  let fixture: ProviderFixture;
  let output: CapturedConsole;
  beforeEach(() => {
    ({ fixture, output } = rig);
  });

  it("state that holds transitionSeconds (written by an earlier version) shows no diff, and each write drops it", async () => {
    const id = seed("running");
    const news = await checked({ serviceId: id, state: "running" });
    for (const transitionSeconds of [
      { start: [1.2], stop: [0.8] },
      "garbage",
      { start: ["x", -1], stop: null },
    ]) {
      const olds = { ...news, observedState: "running", transitionSeconds };
      const diff = await provider.serviceRunStateDiff(id, olds, news);
      assert.equal(diff.changes, false, JSON.stringify(transitionSeconds));
      const read = await provider.serviceRunStateRead(id, olds);
      assert.equal(read.props.observedState, "running");
      assert.equal("transitionSeconds" in read.props, false, "refresh drops it");
      const options = await provider.serviceRunStateUpdate(id, olds, { ...news, timeoutSeconds: 60 });
      assert.equal("transitionSeconds" in options.outs, false, "an update without an API call drops it");
    }
    const olds = { ...news, observedState: "running", transitionSeconds: { start: [1.2], stop: [] } };
    const stopped = await provider.serviceRunStateUpdate(id, olds, { ...news, state: "stopped" });
    assert.equal(stopped.outs.observedState, "stopped");
    assert.equal("transitionSeconds" in stopped.outs, false, "a converge drops it");
  });

  it("stop, then start, in sequence through update", async () => {
    const id = seed("running");
    const created = await provider.serviceRunStateCreate(await checked({ serviceId: id, state: "stopped" }));
    assert.equal(created.outs.observedState, "stopped");
    const news = await checked({ serviceId: id, state: "running" });
    const diff = await provider.serviceRunStateDiff(id, created.outs as unknown as Props, news);
    assert.equal(diff.changes, true);
    assert.deepEqual(diff.replaces, []);
    const updated = await provider.serviceRunStateUpdate(id, created.outs as unknown as Props, news);
    assert.equal(updated.outs.observedState, "running");
    assert.deepEqual(patches(id), ["PATCH stop", "PATCH start"]);
  });

  it("idle counts as running: satisfied with no command, and is not drift", async () => {
    const id = seed("idle");
    const { outs } = await provider.serviceRunStateCreate(await checked({ serviceId: id, state: "running" }));
    assert.equal(outs.observedState, "idle");
    const diff = await provider.serviceRunStateDiff(
      id,
      outs as unknown as Props,
      await checked({ serviceId: id, state: "running" }),
    );
    assert.equal(diff.changes, false);
    assert.deepEqual(requests(id), ["GET"]);
  });

  it("degraded counts as running, with a warning on stderr", async () => {
    const id = seed("degraded");
    await provider.serviceRunStateCreate(await checked({ serviceId: id, state: "running" }));
    assert.ok(
      output.stderr.some((l) => /warning: service "analytics" .*degraded/.test(l)),
      output.stderr.join("\n"),
    );
    assert.deepEqual(patches(id), []);
  });

  it("visibility lag after the command: exactly one start, and it converges", async () => {
    fixture.emulator.setVisibilityLag(200);
    const id = seed("stopped");
    const { outs } = await provider.serviceRunStateCreate(await checked({ serviceId: id, state: "running" }));
    assert.equal(outs.observedState, "running");
    assert.deepEqual(patches(id), ["PATCH start"]);
  });

  it("a command the server lost is sent once more after the grace period", async () => {
    const id = seed("stopped");
    fixture.emulator.injectFault({ route: "changeState", ignoreCommand: true, times: 1 });
    const { outs } = await provider.serviceRunStateCreate(await checked({ serviceId: id, state: "running" }));
    assert.equal(outs.observedState, "running");
    assert.deepEqual(patches(id), ["PATCH start", "PATCH start"]);
    assert.ok(output.stdout.some((l) => /sending it again/.test(l)));
  });

  it("a deadline passed after the command records the resource; the next update carries on without a second start", async () => {
    // A deadline long enough for the read and the start even on a loaded machine, and a start
    // that outlasts it by far.
    fixture.emulator.setTransitions({ starting: 2500 });
    const id = seed("stopped");
    const inputs = await checked({ serviceId: id, state: "running", timeoutSeconds: 1 });
    let recorded: { id: string; properties: Props; reasons: string[] } | undefined;
    try {
      await provider.serviceRunStateCreate(inputs);
    } catch (error) {
      recorded = error as typeof recorded;
    }
    assert.ok(recorded, "create failed");
    assert.equal(recorded.id, id);
    assert.equal(recorded.properties.__provider, PROVIDER_TEXT);
    assert.equal(recorded.properties.observedState, "starting");
    assert.equal(recorded.properties.state, "running");
    assert.match(
      recorded.reasons[0],
      /Timed out .*after sending start.* The command was accepted: the resource is recorded and the next `pulumi up` carries on from the service's state then\.$/,
    );

    while (fixture.emulator.service(id)?.state !== "running") await new Promise((r) => setTimeout(r, 50));
    const diff = await provider.serviceRunStateDiff(id, recorded.properties, inputs);
    assert.equal(diff.changes, true, "observed starting does not satisfy running: update");
    const { outs } = await provider.serviceRunStateUpdate(id, recorded.properties, inputs);
    assert.equal(outs.observedState, "running");
    assert.deepEqual(patches(id), ["PATCH start"]);
  });

  it("refresh after an out-of-band flip shows drift, and the update converges back", async () => {
    const id = seed("stopped");
    const inputs = await checked({ serviceId: id, state: "running" });
    const { outs } = await provider.serviceRunStateCreate(inputs);
    fixture.emulator.setState(id, "stopped");
    const read = await provider.serviceRunStateRead(id, outs as unknown as Props);
    assert.equal(read.id, id);
    assert.equal(read.props.observedState, "stopped");
    const diff = await provider.serviceRunStateDiff(id, read.props, inputs);
    assert.equal(diff.changes, true);
    const { outs: after } = await provider.serviceRunStateUpdate(id, read.props, inputs);
    assert.equal(after.observedState, "running");
    assert.deepEqual(patches(id), ["PATCH start", "PATCH start"]);
  });

  it("read of a service that is gone (404) returns an empty id", async () => {
    const id = seed("running");
    const { outs } = await provider.serviceRunStateCreate(await checked({ serviceId: id, state: "running" }));
    fixture.emulator.removeService(id);
    const read = await provider.serviceRunStateRead(id, outs as unknown as Props);
    assert.equal(read.id, "");
  });

  it("waitForState false: one command, and it returns with the transitional state", async () => {
    const id = seed("stopped");
    const { outs } = await provider.serviceRunStateCreate(
      await checked({ serviceId: id, state: "running", waitForState: false }),
    );
    assert.equal(outs.observedState, "starting");
    assert.deepEqual(requests(id), ["GET", "PATCH start"]);
  });

  it("delete leaves the service as it is: no API call, and a line says so", async () => {
    const id = seed("running");
    const { outs } = await provider.serviceRunStateCreate(await checked({ serviceId: id, state: "running" }));
    fixture.emulator.clearRequests();
    await provider.serviceRunStateDelete(id, outs as unknown as Props);
    assert.equal(fixture.emulator.requests.length, 0);
    assert.ok(
      output.stdout.some((l) =>
        /removed from the stack; the service is left running \(no API call\)/.test(l),
      ),
    );
    assert.equal(fixture.emulator.service(id)?.state, "running");
  });

  it("outputs carry the service details and never an undefined value", async () => {
    const id = seed("stopped");
    const { outs } = await provider.serviceRunStateCreate(await checked({ serviceId: id, state: "running" }));
    assert.equal(outs.serviceName, "analytics");
    assert.ok(outs.databaseVersion.length > 0);
    assert.ok(outs.endpoints.length > 0 && outs.endpoints.every((e) => e.host && e.port > 0));
    const walk = (value: unknown, path: string): void => {
      assert.notEqual(value, undefined, `${path} is undefined`);
      if (value && typeof value === "object")
        for (const [k, v] of Object.entries(value)) walk(v, `${path}.${k}`);
    };
    walk(outs, "outs");
  });

  it("retries through two 503s on GET, and converges under a tight server rate limit", async () => {
    const id = seed("stopped");
    fixture.emulator.injectFault({ route: "getService", status: 503, times: 2 });
    fixture.emulator.setRateLimit({ requests: 3, windowMs: 1_000 });
    const { outs } = await provider.serviceRunStateCreate(await checked({ serviceId: id, state: "running" }));
    assert.equal(outs.observedState, "running");
    const log = fixture.emulator.requests.filter((r) => r.serviceId === id || r.status === 429);
    assert.deepEqual(
      log.slice(0, 3).map((r) => r.status),
      [503, 503, 200],
    );
    assert.ok(
      log.some((r) => r.status === 429),
      "the server's limit was hit and survived",
    );
    assert.deepEqual(patches(id), ["PATCH start"]);
  });
});
