import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { customTimeoutSeconds } from "../../src/resources/programDefaults";
import { DELETION, RUN_STATE, urnOf } from "./engineCalls";
import { PluginCallError } from "./pluginProcess";
import { pluginStack } from "./pluginStack";

/*
 * Adopting what exists: `pulumi import` (Read with an id and no properties) for both resource
 * types, and a stack moving from the dynamic resources with an alias: state the dynamic provider
 * of 0.1.0 wrote (test/fixtures/state-0.1.0.json, `__provider` and all) diffs as no change and
 * refreshes without the dynamic provider's own property; so does state whose timeouts the dynamic
 * resource filled from `customTimeouts`, which the engine gives the plugin instead.
 */

type Props = Record<string, unknown>;
interface Entry {
  name: string;
  id: string;
  inputs: Props;
  outputs: Props;
}
const fixture = JSON.parse(readFileSync(join(__dirname, "..", "fixtures", "state-0.1.0.json"), "utf8")) as {
  organizationId: string;
  resources: Entry[];
};
const ORG = fixture.organizationId;
const entry = (name: string) => structuredClone(fixture.resources.find((r) => r.name === name)!);
const withoutProvider = ({ __provider: _provider, ...rest }: Props) => rest;

describe("plugin: import, and a move from the dynamic resources", function () {
  const stack = pluginStack({ organizationId: ORG });

  for (const [shown, desired] of [
    ["running", "running"],
    ["idle", "running"],
    ["stopped", "stopped"],
  ] as const) {
    it(`import of a ServiceRunState whose service is ${shown}: desired ${desired}, then no diff`, async function () {
      const serviceId = randomUUID();
      stack.emulator.addService({ organizationId: ORG, id: serviceId, name: "adopted", state: shown });
      const urn = urnOf(RUN_STATE, "adopted");
      const imported = await stack.calls.read(serviceId, urn, {});
      assert.equal(imported.id, serviceId);
      assert.deepEqual(imported.inputs, { organizationId: ORG, serviceId, state: desired });
      assert.equal(imported.properties.observedState, shown);
      assert.equal(imported.properties.state, desired);
      const { inputs } = await stack.calls.check(urn, {}, { serviceId, state: desired });
      assert.equal((await stack.calls.diff(serviceId, urn, imported.properties, inputs)).changes, "none");
    });
  }

  it("import by organizationId/serviceId; a service in transition, or a malformed id, is refused", async function () {
    const serviceId = randomUUID();
    stack.emulator.addService({ organizationId: ORG, id: serviceId, state: "stopped" });
    const imported = await stack.calls.read(`${ORG}/${serviceId}`, urnOf(RUN_STATE, "by-path"), {});
    assert.equal(imported.id, serviceId);
    stack.emulator.setState(serviceId, "starting");
    const moving = await stack.calls
      .read(serviceId, urnOf(RUN_STATE, "moving"), {})
      .catch((e: PluginCallError) => e);
    assert.match((moving as PluginCallError).message, /import it once it has settled/);
    const malformed = await stack.calls
      .read("a/b/c", urnOf(RUN_STATE, "bad"), {})
      .catch((e: PluginCallError) => e);
    assert.match((malformed as PluginCallError).message, /import id is a service id/);
  });

  it("import of a ReversePrivateEndpointDeletion by organizationId/serviceId/endpointId", async function () {
    const serviceId = randomUUID();
    stack.emulator.addService({ organizationId: ORG, id: serviceId, reversePrivateEndpointIds: ["rpe-9"] });
    const id = `${ORG}/${serviceId}/rpe-9`;
    const imported = await stack.calls.read(id, urnOf(DELETION, "pipes"), {});
    assert.equal(imported.id, id);
    assert.deepEqual(imported.inputs, { organizationId: ORG, serviceId, reversePrivateEndpointId: "rpe-9" });
    assert.equal(imported.properties.timeoutSeconds, 300);
    const bad = await stack.calls
      .read(serviceId, urnOf(DELETION, "bad"), {})
      .catch((e: PluginCallError) => e);
    assert.match((bad as PluginCallError).message, /organizationId\/serviceId\/reversePrivateEndpointId/);
  });

  /** A refresh of 0.1.0's state `old` with its service there: what it read, with no `__provider`. */
  async function refreshed010(old: Entry, urn: string, name: string) {
    const serviceId = old.outputs.serviceId as string;
    stack.emulator.addService({
      organizationId: ORG,
      id: serviceId,
      name,
      reversePrivateEndpointIds: ["rpe-from-0-1-0"],
    });
    const refreshed = await stack.calls.read(old.id, urn, old.outputs);
    assert.ok(!("__provider" in refreshed.properties));
    return { serviceId, refreshed };
  }

  for (const [name, type] of [
    ["analytics", RUN_STATE],
    ["pipes", DELETION],
  ] as const) {
    it(`an alias move of ${name} from state the 0.1.0 dynamic provider wrote: no diff, refresh drops __provider`, async function () {
      const old = entry(name);
      assert.equal(typeof old.outputs.__provider, "string", "the fixture holds the dynamic provider");
      const urn = urnOf(type, name);
      // The program now declares the plugin's type with the same arguments (no __provider).
      const { inputs, failures } = await stack.calls.check(urn, old.inputs, withoutProvider(old.inputs));
      assert.deepEqual(failures, []);
      const planned = await stack.calls.diff(old.id, urn, old.outputs, inputs);
      assert.equal(planned.changes, "none", JSON.stringify(planned));

      const { serviceId, refreshed } = await refreshed010(old, urn, name);
      assert.equal(refreshed.id, old.id);
      assert.equal((await stack.calls.diff(old.id, urn, refreshed.properties, inputs)).changes, "none");
      stack.emulator.removeService(serviceId);
    });
  }

  const TIMEOUTS = { create: "10m", update: "15m", delete: "8m" };
  for (const [name, type, fromTimeouts] of [
    [
      "analytics",
      RUN_STATE,
      {
        timeoutSeconds: customTimeoutSeconds("ServiceRunState", "analytics", TIMEOUTS, ["create", "update"]),
        deleteTimeoutSeconds: customTimeoutSeconds("ServiceRunState", "analytics", TIMEOUTS, ["delete"]),
      },
    ],
    [
      "pipes",
      DELETION,
      {
        timeoutSeconds: customTimeoutSeconds("ReversePrivateEndpointDeletion", "pipes", TIMEOUTS, ["delete"]),
      },
    ],
  ] as const) {
    it(`an alias move of ${name} created with customTimeouts: no diff before or after a refresh; a timeout the program sets still diffs`, async function () {
      // As the dynamic resource stores them: `customTimeouts` as the timeout inputs, in and out.
      const old = entry(name);
      Object.assign(old.inputs, fromTimeouts);
      Object.assign(old.outputs, fromTimeouts);
      const urn = urnOf(type, name);
      // The program keeps its customTimeouts (the engine sends them with each call) and no timeout input.
      const program = withoutProvider(old.inputs);
      for (const key of Object.keys(fromTimeouts)) delete program[key];
      const { inputs } = await stack.calls.check(urn, old.inputs, program);
      const planned = await stack.calls.diff(old.id, urn, old.outputs, inputs, old.inputs);
      assert.equal(planned.changes, "none", JSON.stringify(planned));

      const { serviceId, refreshed } = await refreshed010(old, urn, name);
      const after = await stack.calls.diff(old.id, urn, refreshed.properties, inputs, old.inputs);
      assert.equal(after.changes, "none", JSON.stringify(after));

      const explicit = (await stack.calls.check(urn, old.inputs, { ...program, timeoutSeconds: 60 })).inputs;
      const changed = await stack.calls.diff(old.id, urn, refreshed.properties, explicit, old.inputs);
      assert.deepEqual([changed.changes, changed.diffs], ["some", ["timeoutSeconds"]]);
      stack.emulator.removeService(serviceId);
    });
  }
});
