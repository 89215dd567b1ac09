import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { startEmulator, type Emulator, type RequestLogEntry } from "../../src/emulator";
import { DELETION, RUN_STATE, urnOf } from "./engineCalls";
import { PluginCallError, startFakeEngine, type PluginProcess } from "./pluginProcess";
import { configuredPlugin, stoppedService, type EngineCalls, type FakeEngine } from "./pluginStack";

/*
 * The engine's Cancel over gRPC ends every wait of the plugin at once: a request the server holds
 * open, a wait for the rate budget, a retry's sleep, and every call after it. A create whose start
 * may have been applied is recorded (ErrorResourceInitFailed, from the last GET), as a deadline's
 * is. Cancel is for the whole process: each case starts a plugin of its own. No case sets an
 * engine timeout, so only Cancel can end these waits before the test's own timeout.
 */

const ORG = randomUUID();

describe("plugin: Cancel ends every wait and records what may have been applied", function () {
  this.timeout(30_000);
  let emulator: Emulator;
  let engine: FakeEngine;
  const plugins: PluginProcess[] = [];

  before(async function () {
    emulator = await startEmulator({ transitions: { starting: 600_000 } });
    engine = await startFakeEngine();
  });

  afterEach(function () {
    emulator.clearFaults();
  });

  after(async function () {
    await Promise.all(plugins.map((plugin) => plugin.stop()));
    engine?.stop();
    await emulator?.close();
  });

  /** A plugin of its own, configured against the emulator (`rateLimit` as the stack config gives it). */
  async function freshPlugin(rateLimit = "off") {
    const configured = await configuredPlugin(emulator, engine, { organizationId: ORG, rateLimit });
    plugins.push(configured.plugin);
    return configured;
  }

  const stoppedAs = (calls: EngineCalls, name: string) => stoppedService({ emulator, calls }, ORG, name);

  const requestsOf = (serviceId: string) => emulator.requests.filter((r) => r.serviceId === serviceId);

  /** Resolves once the emulator has logged a request of the service that `matches`. */
  async function logged(serviceId: string, matches: (entry: RequestLogEntry) => boolean) {
    while (!requestsOf(serviceId).some(matches)) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  const failureOf = (pending: Promise<unknown>) =>
    pending.then(
      () => assert.fail("the call should have been cancelled"),
      (error: PluginCallError) => error,
    );

  it("a start and a stop the server applied and holds open: one Cancel aborts both, and the create and the update are recorded from the last GET", async function () {
    const { calls, cancel } = await freshPlugin();
    const created = await stoppedAs(calls, "held-open");
    const updatedId = randomUUID();
    emulator.addService({ organizationId: ORG, id: updatedId, name: "held-open-stop", state: "running" });
    const updatedUrn = urnOf(RUN_STATE, "held-open-stop");
    const olds = (await calls.check(updatedUrn, {}, { serviceId: updatedId, state: "running" })).inputs;
    const news = (await calls.check(updatedUrn, olds, { serviceId: updatedId, state: "stopped" })).inputs;
    emulator.injectFault({ route: "changeState", stall: "after", times: 2 });
    const creating = failureOf(calls.create(created.urn, created.inputs));
    const updating = failureOf(
      calls.update(updatedId, updatedUrn, { ...olds, observedState: "running" }, news),
    );
    for (const serviceId of [created.serviceId, updatedId])
      await logged(serviceId, (r) => r.method === "PATCH" && r.status === "stalled");
    await cancel();

    for (const [failed, serviceId, name, desired, command, before, after] of [
      [await creating, created.serviceId, "held-open", "running", "start", "stopped", "starting"],
      [await updating, updatedId, "held-open-stop", "stopped", "stop", "running", "stopping"],
    ] as const) {
      assert.match(
        failed.message,
        new RegExp(`^Cancelled after .* waiting for service "${name}" .* to be ${desired}`),
      );
      assert.match(failed.message, /the resource is recorded/);
      const recorded = failed.initFailure;
      assert.ok(recorded, `ErrorResourceInitFailed: the ${command} may have been applied`);
      assert.equal(recorded.id, serviceId);
      assert.equal(recorded.properties.observedState, before, "what the last GET showed");
      assert.equal((recorded.properties.lastCommand as { command: string }).command, command);
      assert.equal(emulator.service(serviceId)?.state, after, "the server did apply it");
    }
  });

  it("a wait for the rate budget: Cancel ends it, nothing more is sent, and later reads and deletes end at once", async function () {
    // One request in ten minutes (within the create's deadline): the GET takes it, the start waits.
    const { calls, cancel } = await freshPlugin("1/10m");
    const { serviceId, urn, inputs } = await stoppedAs(calls, "budget");
    const creating = failureOf(calls.create(urn, inputs));
    await logged(serviceId, (r) => r.method === "GET");
    await cancel();
    const failed = await creating;
    assert.match(failed.message, /^Cancelled/);
    assert.equal(failed.initFailure, undefined, "nothing was sent that could apply");
    assert.deepEqual(
      requestsOf(serviceId).map((r) => r.method),
      ["GET"],
    );
    assert.equal(emulator.service(serviceId)?.state, "stopped");

    const seen = emulator.requests.length;
    const read = await failureOf(calls.read(serviceId, urn, { ...inputs, observedState: "stopped" }));
    assert.match(read.message, /^Cancelled \(GET /);
    const withEndpoint = randomUUID();
    emulator.addService({ organizationId: ORG, id: withEndpoint, reversePrivateEndpointIds: ["rpe-1"] });
    const props = {
      organizationId: ORG,
      serviceId: withEndpoint,
      reversePrivateEndpointId: "rpe-1",
      timeoutSeconds: 300,
    };
    const id = `${ORG}/${withEndpoint}/rpe-1`;
    const deleting = await failureOf(calls.delete(id, urnOf(DELETION, "pipes"), props));
    assert.match(deleting.message, /Cancelled \(DELETE /);
    assert.equal(emulator.requests.length, seen, "no request after Cancel");
    assert.ok(emulator.hasEndpoint(withEndpoint, "rpe-1"));
  });

  it("a retry's sleep after a 429 that asks for a minute: Cancel ends it, and nothing more is sent", async function () {
    const { calls, cancel } = await freshPlugin();
    const { serviceId, urn, inputs } = await stoppedAs(calls, "retrying");
    emulator.injectFault({ route: "getService", status: 429, retryAfterSeconds: 60 });
    const creating = failureOf(calls.create(urn, inputs));
    // The plugin logs its retry just before it sleeps: then, and only then, it is asleep.
    while (!engine.lines.some((line) => line.message.includes("retrying in")))
      await new Promise((resolve) => setTimeout(resolve, 20));
    await cancel();
    const failed = await creating;
    assert.match(failed.message, /^Cancelled/);
    assert.equal(failed.initFailure, undefined);
    assert.deepEqual(
      requestsOf(serviceId).map((r) => r.status),
      [429],
    );
  });
});
