// The fault suite's Cancel at any point: each case starts the plugin as the engine does (Cancel is
// for the whole process), arms faults, drives a Create of a ServiceRunState over gRPC, and sends
// the engine's Cancel once the service has seen a chosen number of requests, or one is held open.
// Then: the create ended at once; nothing was sent after Cancel but a request already in flight; a
// command the server applied is recorded (ErrorResourceInitFailed) or the create succeeded; a
// later call ends at once, unsent; and no form of the key secret shows. FUZZ_SEED replays a case.
import assert from "node:assert/strict";
import fc from "fast-check";
import { satisfies, type DesiredState } from "../../src/provider/stateTable";
import type { Fault } from "../../src/emulator";
import { RUN_STATE, urnOf } from "../plugin/engineCalls";
import { startFakeEngine, type PluginCallError } from "../plugin/pluginProcess";
import { configuredPlugin, type FakeEngine } from "../plugin/pluginStack";
import { FIRST_STATES, transientFault } from "./faults";
import {
  commandsApplied,
  commandsReached,
  entriesSince,
  findLeaks,
  FUZZ_SEED,
  lastSeq,
  MAX_COMMANDS,
  runs,
  startWorld,
  TIME_SCALE,
  totals,
  WALL_SLACK_MS,
  type World,
} from "./harness";

interface Case {
  first: string;
  desired: DesiredState;
  timeoutSeconds: number;
  faults: Fault[];
  /** Cancel once the service has seen this many requests (or one is held open, or the create ended). */
  cancelAfter: number;
}

/** A request the server holds open, before or after applying it: only Cancel or the deadline ends it. */
const heldOpen = (): fc.Arbitrary<Fault> =>
  fc.record({
    route: fc.constantFrom<Fault["route"]>("changeState", "getService"),
    stall: fc.constantFrom<"before" | "after">("before", "after"),
  });

const cases: fc.Arbitrary<Case> = fc.record({
  first: fc.constantFrom(...FIRST_STATES),
  desired: fc.constantFrom<DesiredState>("running", "stopped"),
  timeoutSeconds: fc.constantFrom(2, 30),
  faults: fc.array(fc.oneof(transientFault(), heldOpen()), { maxLength: 2 }),
  cancelAfter: fc.integer({ min: 0, max: 6 }),
});

type Ended = { value?: unknown; error?: PluginCallError };

describe("fault suite: Cancel at any point, over gRPC", function () {
  this.timeout(600_000);
  let world: World;
  let engine: FakeEngine;

  before(async function () {
    // Transitions long enough that a converge polls a few times before it is done.
    world = await startWorld({
      transitions: { starting: 600, stopping: 600, awaking: 400, provisioning: 600 },
    });
    engine = await startFakeEngine();
  });

  after(async function () {
    engine?.stop();
    await world?.close();
  });

  /** Resolves when the service has seen `count` requests, one is held open, or `ended` is set. */
  async function cancelPoint(serviceId: string, since: number, count: number, ended: () => boolean) {
    for (;;) {
      const entries = entriesSince(world, serviceId, since);
      if (ended() || entries.length >= count || entries.some((e) => e.status === "stalled")) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  /** Every invariant of one case, as text; empty when all hold. */
  async function runCase(c: Case): Promise<string[]> {
    const { emulator, organizationId } = world;
    const serviceId = emulator.addService({ organizationId, name: "cancelled", state: c.first }).id;
    const { plugin, calls, cancel } = await configuredPlugin(emulator, engine, {
      organizationId,
      env: { DBCLOUD_TIME_SCALE: String(TIME_SCALE) },
    });
    try {
      const urn = urnOf(RUN_STATE, `svc-${serviceId}`);
      const { inputs } = await calls.check(urn, {}, { serviceId, state: c.desired });
      const since = lastSeq(world);
      for (const fault of c.faults) emulator.injectFault(fault);
      let result: Ended | undefined;
      const creating = calls.create(urn, inputs, c.timeoutSeconds).then(
        (value) => (result = { value }),
        (error: PluginCallError) => (result = { error }),
      );
      await cancelPoint(serviceId, since, c.cancelAfter, () => result !== undefined);
      await cancel();
      const cancelledAt = lastSeq(world);
      const problems: string[] = [];
      let watchdog: NodeJS.Timeout | undefined;
      const bound = new Promise((resolve) => (watchdog = setTimeout(resolve, WALL_SLACK_MS)));
      await Promise.race([creating, bound]);
      clearTimeout(watchdog);
      if (!result) return [`the create was still running ${WALL_SLACK_MS} ms after Cancel`];
      const later = await calls.read(serviceId, urn, { ...inputs, observedState: c.first }).then(
        () => "the read after Cancel succeeded",
        (error: PluginCallError) =>
          /^Cancelled/.test(error.message) ? "" : `the read after Cancel: ${error.message}`,
      );
      if (later) problems.push(later);
      // Settled: a request aborted in flight may still be logged.
      await new Promise((resolve) => setTimeout(resolve, 100));
      problems.push(...verdict(c, serviceId, since, cancelledAt, result));
      problems.push(...findLeaks(world, "create", result), ...findLeaks(world, "stderr", plugin.stderr));
      problems.push(...findLeaks(world, "engine log", engine.lines));
      return problems;
    } finally {
      emulator.clearFaults();
      await plugin.stop();
    }
  }

  function verdict(c: Case, serviceId: string, since: number, cancelledAt: number, result: Ended): string[] {
    const entries = entriesSince(world, serviceId, since);
    const after = entries.filter((e) => e.seq > cancelledAt);
    totals.runs++;
    totals.faults += entries.filter((e) => e.fault !== undefined).length;
    const problems: string[] = [];
    if (after.length > 1)
      problems.push(
        `${after.length} requests after Cancel (${after.map((e) => `${e.method} ${e.status}`).join(", ")})`,
      );
    if (commandsReached(entries).length > MAX_COMMANDS)
      problems.push(`${commandsReached(entries).length} PATCHes reached the server`);
    const applied = commandsApplied(entries);
    if (result.error === undefined) {
      const observed = String(
        (result.value as { properties: Record<string, unknown> }).properties.observedState,
      );
      if (!satisfies(observed, c.desired) && c.timeoutSeconds > 0)
        problems.push(`succeeded with ${observed}, not ${c.desired}`);
      return problems;
    }
    const init = result.error.initFailure;
    if (!init && applied.length > 0) {
      totals.lost++;
      problems.push(
        `a plain error after ${applied.length} command(s) changed the service: lost. ${result.error.message.slice(0, 300)}`,
      );
    }
    if (init && init.id !== serviceId) problems.push(`recorded id ${init.id}, not ${serviceId}`);
    if (init && applied.length > 0 && !(init.properties.lastCommand as { command?: string })?.command)
      problems.push("recorded without the command it sent");
    return problems;
  }

  it("Cancel at any point: ends at once, sends nothing more, and records every command that may have applied", async function () {
    await fc.assert(
      fc.asyncProperty(cases, async (c) => {
        const problems = await runCase(c);
        assert.deepEqual(problems, [], `invariants broken:\n  ${problems.join("\n  ")}`);
      }),
      { seed: FUZZ_SEED, numRuns: runs(8), endOnFailure: false },
    );
  });
});
