// The fault suite's properties over the provider plugin: the bin started once, as the engine starts
// it, and configured against the emulator; each case seeds a service, arms faults, and drives a
// Create of a ServiceRunState (with the engine's timeout) and a Delete of a
// ReversePrivateEndpointDeletion over gRPC, judged by the invariants the dynamic provider's
// properties are judged by. A failure prints the shrunk case and the seed (FUZZ_SEED=<seed>).
import assert from "node:assert/strict";
import fc from "fast-check";
import { satisfies, type DesiredState } from "../../src/provider/stateTable";
import type { Fault } from "../../src/emulator";
import { DELETION, RUN_STATE, urnOf } from "../plugin/engineCalls";
import { startFakeEngine, type PluginCallError, type PluginProcess } from "../plugin/pluginProcess";
import { configuredPlugin, type EngineCalls, type FakeEngine } from "../plugin/pluginStack";
import { judgeConverge } from "./convergeVerdict";
import { deleteBoundMs, endpointFault, FIRST_STATES, hostileFault, transientFault } from "./faults";
import {
  countRetries,
  entriesSince,
  findLeaks,
  FUZZ_SEED,
  lastSeq,
  runs,
  startWorld,
  TIME_SCALE,
  totals,
  unclearError,
  WALL_SLACK_MS,
  type ActionResult,
  type World,
} from "./harness";

const ENDPOINT = "rpe-0a1b2c";

interface Case {
  first: string;
  desired: DesiredState;
  /** The engine's timeout of the create: `customTimeouts` in the program. */
  timeoutSeconds: number;
  waitForState: boolean;
  lagMs: number;
  createFaults: Fault[];
  deleteFaults: Fault[];
  /** The endpoint was deleted by someone else before the destroy. */
  goneBefore: boolean;
  /** The engine's timeout of the delete; 0 for none (the input's then bounds it). */
  deleteTimeout: number;
}

const DESIRED: DesiredState[] = ["running", "stopped"];
/** A first state and the state asked for, three times in four one that takes a command. */
const firstAndDesired = fc.constantFrom(...FIRST_STATES).chain((first) => {
  const needsCommand = DESIRED.filter((desired) => !satisfies(first, desired));
  return fc.record({
    first: fc.constant(first),
    desired: fc.oneof(
      { arbitrary: fc.constantFrom(...needsCommand), weight: 3 },
      { arbitrary: fc.constantFrom(...DESIRED), weight: 1 },
    ),
  });
});

const caseOf = (fault: fc.Arbitrary<Fault>, deleteFault: fc.Arbitrary<Fault>): fc.Arbitrary<Case> =>
  fc
    .record({
      start: firstAndDesired,
      timeoutSeconds: fc.constantFrom(0.6, 1, 1.5),
      waitForState: fc.boolean(),
      lagMs: fc.constantFrom(0, 0, 40, 250),
      createFaults: fc.array(fault, { minLength: 1, maxLength: 2 }),
      deleteFaults: fc.array(deleteFault, { minLength: 1, maxLength: 3 }),
      goneBefore: fc.boolean(),
      deleteTimeout: fc.constantFrom(0, 2, 30),
    })
    // As in the model: a stop is always waited for.
    .map(({ start, ...c }) => ({
      ...c,
      ...start,
      waitForState: c.waitForState || start.desired === "stopped",
    }));

describe("fault suite: the provider plugin", function () {
  this.timeout(600_000);
  let world: World;
  let engine: FakeEngine;
  let plugin: PluginProcess;
  let calls: EngineCalls;

  before(async function () {
    world = await startWorld();
    engine = await startFakeEngine();
    const { emulator, organizationId } = world;
    const env = { DBCLOUD_TIME_SCALE: String(TIME_SCALE) };
    ({ plugin, calls } = await configuredPlugin(emulator, engine, { organizationId, env }));
  });

  after(async function () {
    await plugin?.stop();
    engine?.stop();
    await world?.close();
  });

  /**
   * One gRPC call, with what the plugin printed meanwhile (stdout past the port and the engine's
   * log lines as stdout, stderr as stderr); given up on 500 ms past `boundMs`, marked cut off.
   */
  async function overGrpc<T>(boundMs: number, call: () => Promise<T>): Promise<ActionResult<T>> {
    const before = { out: plugin.stdout.length, err: plugin.stderr.length, log: engine.lines.length };
    const startedAt = performance.now();
    let watchdog: NodeJS.Timeout | undefined;
    const ended = await Promise.race([
      call().then(
        (value) => ({ value, cutOff: false }),
        (error: unknown) => ({ error, cutOff: false }),
      ),
      new Promise<{ cutOff: true }>((resolve) => {
        watchdog = setTimeout(() => resolve({ cutOff: true }), boundMs + 500);
      }),
    ]);
    clearTimeout(watchdog);
    return {
      ...ended,
      elapsedMs: performance.now() - startedAt,
      stdout: [
        ...plugin.stdout.slice(before.out),
        ...engine.lines.slice(before.log).map((line) => line.message),
      ],
      stderr: plugin.stderr.slice(before.err),
    };
  }

  /** The action's bookkeeping: the counts line, and where a form of the secret showed. */
  function leaksAndCounts(what: string, result: ActionResult<unknown>, serviceId: string, since: number) {
    const entries = entriesSince(world, serviceId, since);
    totals.runs++;
    totals.faults += entries.filter((entry) => entry.fault !== undefined).length;
    totals.retries += countRetries(entries);
    world.emulator.clearFaults();
    world.emulator.setVisibilityLag(0);
    const leaks = [
      ...findLeaks(world, `${what} error`, result.error),
      ...findLeaks(world, `${what} answer`, result.value),
      ...findLeaks(world, `${what} stdout and engine log`, result.stdout),
      ...findLeaks(world, `${what} stderr`, result.stderr),
      ...plugin.stdout.map((line) => `the plugin printed past its port on stdout: ${line.slice(0, 160)}`),
    ];
    totals.leaks += leaks.length;
    return { entries, leaks };
  }

  async function createUnder(c: Case, serviceId: string): Promise<string[]> {
    const urn = urnOf(RUN_STATE, `svc-${serviceId}`);
    const news = { serviceId, state: c.desired, waitForState: c.waitForState };
    const { inputs, failures } = await calls.check(urn, {}, news);
    assert.deepEqual(failures, []);
    const since = lastSeq(world);
    world.emulator.setVisibilityLag(c.lagMs);
    if (c.lagMs > 0) totals.faults++;
    for (const fault of c.createFaults) world.emulator.injectFault(fault);
    const boundMs = c.timeoutSeconds * 1000 + WALL_SLACK_MS;
    const result = await overGrpc(boundMs, async () => {
      const created = await calls.create(urn, inputs, c.timeoutSeconds);
      if (created.id !== serviceId) throw new Error(`create answered id ${created.id}, not ${serviceId}`);
      return created.properties;
    });
    const { entries, leaks } = leaksAndCounts("create", result, serviceId, since);
    const { desired, timeoutSeconds, waitForState } = c;
    const flipsBack = c.createFaults.some((fault) => fault.flipBackAfterMs !== undefined);
    const verdict = judgeConverge(
      world,
      { what: "create", serviceId, desired, timeoutSeconds, waitForState, flipsBack, boundMs },
      entries,
      result,
      (result.error as PluginCallError | undefined)?.initFailure,
    );
    if (verdict.lost) totals.lost++;
    const { time, commands, outcome, recorded } = verdict;
    return Object.entries({ time, commands, outcome, recorded, secret: leaks }).flatMap(([group, problems]) =>
      problems.map((problem) => `create, ${group}: ${problem}`),
    );
  }

  async function deleteUnder(c: Case, serviceId: string): Promise<string[]> {
    const urn = urnOf(DELETION, `rpe-${serviceId}`);
    const { inputs } = await calls.check(urn, {}, { serviceId, reversePrivateEndpointId: ENDPOINT });
    const created = await calls.create(urn, inputs);
    if (c.goneBefore) {
      world.emulator.removeEndpoint(serviceId, ENDPOINT);
      totals.faults++;
    }
    const since = lastSeq(world);
    for (const fault of c.deleteFaults) world.emulator.injectFault(fault);
    const boundMs = deleteBoundMs(c.deleteFaults);
    const result = await overGrpc(boundMs, () =>
      calls.delete(created.id, urn, created.properties, c.deleteTimeout),
    );
    const { entries, leaks } = leaksAndCounts("delete", result, serviceId, since);
    const problems = leaks.map((leak) => `delete, secret: ${leak}`);
    if (result.cutOff) problems.push(`delete, time: still running ${boundMs + 500} ms in`);
    else if (result.error !== undefined)
      problems.push(...unclearError(result.error, entries, world).map((p) => `delete, outcome: ${p}`));
    else if (world.emulator.hasEndpoint(serviceId, ENDPOINT))
      problems.push(
        `delete, outcome: reported success but the endpoint still exists (${entries.map((e) => e.status).join(", ")})`,
      );
    return problems;
  }

  const property = (fault: fc.Arbitrary<Fault>, deleteFault: fc.Arbitrary<Fault>) =>
    fc.asyncProperty(caseOf(fault, deleteFault), async (c) => {
      const serviceId = world.emulator.addService({
        organizationId: world.organizationId,
        name: "analytics",
        state: c.first,
        reversePrivateEndpointIds: [ENDPOINT],
      }).id;
      const problems = [...(await createUnder(c, serviceId)), ...(await deleteUnder(c, serviceId))];
      assert.deepEqual(problems, [], `invariants broken:\n  ${problems.join("\n  ")}`);
    });
  const settings = (numRuns: number) => ({ seed: FUZZ_SEED, numRuns: runs(numRuns), endOnFailure: false });

  it("under the faults it is built to ride out, every invariant holds over gRPC", async function () {
    await fc.assert(property(transientFault(), endpointFault(false)), settings(10));
  });

  it("under every fault kind, every invariant holds over gRPC", async function () {
    await fc.assert(property(hostileFault(), endpointFault(true)), settings(8));
  });

  it("no form of the key secret in any line the plugin printed, and nothing but the port on stdout", function () {
    assert.deepEqual(plugin.stdout, []);
    const leaks = [
      ...findLeaks(world, "stderr", plugin.stderr),
      ...findLeaks(world, "the engine log", engine.lines),
    ];
    totals.leaks += leaks.length;
    assert.deepEqual(leaks, []);
  });
});
