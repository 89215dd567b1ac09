// The model of one ServiceRunState resource and its service, for fc.commands: random schedules
// of faults, visibility lag and out-of-band flips, between converges (create, or update once the
// resource is recorded) and refreshes through the real provider functions. The model keeps what
// the stack recorded; after each action the chosen invariants are checked against the emulator.
import assert from "node:assert/strict";
import fc from "fast-check";
import * as provider from "../../src/provider";
import { decide, satisfies, sentFrom, targetOf, type DesiredState } from "../../src/provider/stateTable";
import { DEFAULT_TUNING } from "../../src/provider/converge";
import type { Fault } from "../../src/emulator";
import { clockStep, describeStep, withClockStep, type ClockStep } from "./clockSteps";
import { unlookedCommand } from "./lostAnswers";
import { monotonicNow } from "../helpers/wallClock";
import { FLIP_STATES } from "./faults";
import { seedService, type WarehouseMix } from "./warehouses";
import {
  commandsApplied,
  commandsReached,
  countRetries,
  entriesSince,
  findLeaks,
  forbiddenCommands,
  lastSeq,
  lastShownState,
  MAX_ATTEMPTS,
  MAX_COMMANDS,
  runAction,
  TIME_SCALE,
  startWorld,
  totals,
  unclearError,
  WALL_SLACK_MS,
  type ActionResult,
  type World,
} from "./harness";

type Props = Record<string, unknown>;
export type Invariant = "outcome" | "recorded" | "commands" | "time" | "secret";
export const ALL_INVARIANTS: Invariant[] = ["outcome", "recorded", "commands", "time", "secret"];

export interface Model {
  recorded: Props | undefined;
  /** The watchdog closed the emulator: nothing more can be judged in this run. */
  dead: boolean;
}
export interface Real {
  world: World;
  serviceId: string;
  invariants: Invariant[];
}

/** Checks one group of invariants; throws an assertion naming every violation. */
function report(real: Real, group: Invariant, problems: string[]): void {
  if (!real.invariants.includes(group)) return;
  if (group === "secret") totals.leaks += problems.length;
  assert.deepEqual(problems, [], `${group} invariant broken:\n  ${problems.join("\n  ")}`);
}

class SetLag implements fc.AsyncCommand<Model, Real> {
  constructor(readonly ms: number) {}
  check = (m: Readonly<Model>) => !m.dead;
  async run(_m: Model, r: Real): Promise<void> {
    r.world.emulator.setVisibilityLag(this.ms);
    totals.faults++;
  }
  toString = () => `lag ${this.ms}ms`;
}

class Flip implements fc.AsyncCommand<Model, Real> {
  constructor(readonly state: string) {}
  check = (m: Readonly<Model>) => !m.dead;
  async run(_m: Model, r: Real): Promise<void> {
    r.world.emulator.setState(r.serviceId, this.state);
    totals.faults++;
  }
  toString = () => `flip to ${this.state}`;
}

/** The action's common bookkeeping: counts, leaks, and the faults forgotten after it. */
function afterAction(m: Model, r: Real, result: ActionResult<unknown>, since: number, what: string): void {
  const entries = entriesSince(r.world, r.serviceId, since);
  totals.runs++;
  if (result.cutOff) m.dead = true;
  totals.faults += entries.filter((e) => e.fault !== undefined).length;
  totals.retries += countRetries(entries);
  r.world.emulator.clearFaults();
  const leaks = [
    ...findLeaks(r.world, `${what} error`, result.error),
    ...findLeaks(r.world, `${what} outputs`, result.value),
    ...findLeaks(r.world, `${what} stdout`, result.stdout),
    ...findLeaks(r.world, `${what} stderr`, result.stderr),
  ];
  report(r, "secret", leaks);
}

/** Arms the faults of one action: they apply to its requests and are cleared after it. */
function arm(r: Real, faults: Fault[]): void {
  for (const fault of faults) r.world.emulator.injectFault(fault);
}
const describeFaults = (faults: Fault[]) => (faults.length ? ` with faults ${JSON.stringify(faults)}` : "");

export class Converge implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly desired: DesiredState,
    readonly timeoutSeconds: number,
    readonly waitForState: boolean,
    readonly faults: Fault[] = [],
    readonly clockStep?: ClockStep,
  ) {}
  check = (m: Readonly<Model>) => !m.dead;
  async run(m: Model, r: Real): Promise<void> {
    const { world, serviceId } = r;
    const since = lastSeq(world);
    arm(r, this.faults);
    const news: Props = {
      organizationId: world.organizationId,
      serviceId,
      state: this.desired,
      timeoutSeconds: this.timeoutSeconds,
      waitForState: this.waitForState,
      __provider: "serialized-provider-text",
    };
    const olds = m.recorded;
    const what = olds ? "update" : "create";
    const boundMs = this.timeoutSeconds * 1000 + WALL_SLACK_MS;
    if (this.clockStep) totals.faults++;
    const result = await runAction(world, boundMs, () =>
      withClockStep(this.clockStep, async () =>
        olds
          ? ((await provider.serviceRunStateUpdate(serviceId, olds, news)).outs as unknown as Props)
          : ((await provider.serviceRunStateCreate(news)).outs as unknown as Props),
      ),
    );
    const entries = entriesSince(world, serviceId, since);
    const flipsBack = this.faults.some((fault) => fault.flipBackAfterMs !== undefined);
    afterAction(m, r, result, since, what);

    report(r, "time", [
      ...(result.elapsedMs > boundMs
        ? [`${what} took ${result.elapsedMs} ms; deadline + slack is ${boundMs} ms`]
        : []),
      ...(result.cutOff
        ? [`${what} was still running ${boundMs + 500} ms in: the watchdog closed the emulator`]
        : []),
    ]);

    const requestBound = MAX_ATTEMPTS * (Math.ceil((this.timeoutSeconds * 1000) / 16) + 2 * MAX_COMMANDS + 2);
    const reached = commandsReached(entries);
    report(r, "commands", [
      ...forbiddenCommands(entries, this.desired),
      ...(reached.length > MAX_COMMANDS
        ? [`${reached.length} PATCHes reached the server in one ${what} (at most ${MAX_COMMANDS})`]
        : []),
      ...(entries.length > requestBound
        ? [`${entries.length} requests in one ${what} (bound ${requestBound})`]
        : []),
    ]);

    // Past the watchdog, the error is the emulator closing: nothing more to judge.
    if (result.cutOff) return;
    const shown = lastShownState(entries);
    const applied = commandsApplied(entries);
    const outcome: string[] = [];
    const recorded: string[] = [];
    if (result.error === undefined) {
      const outs = result.value as Props;
      const observed = String(outs.observedState);
      const toward = decide(observed, this.desired);
      // waitForState false returns with what the PATCH answered (README), whatever that was.
      const last = entries[entries.length - 1];
      const patchAnswer = last?.method === "PATCH" && last.stateShown === observed;
      const accepted =
        satisfies(observed, this.desired) ||
        (!this.waitForState && (toward.action === "wait" || patchAnswer));
      if (!accepted) outcome.push(`${what} succeeded with ${observed}, which is not ${this.desired}`);
      // No request at all: an update of options only, which keeps the old observation.
      if (entries.length > 0 && observed !== shown)
        recorded.push(`${what} recorded ${observed} but the server last showed ${shown}`);
      const now = world.emulator.service(serviceId)?.state ?? "(gone)";
      // (An update with no request keeps its old observation: drift since is refresh's to find.)
      if (!flipsBack && this.waitForState && entries.length > 0 && !satisfies(now, this.desired))
        recorded.push(`${what} recorded ${observed} but the service is ${now}`);
      m.recorded = outs;
    } else {
      outcome.push(...unclearError(result.error, entries, world));
      const init = result.error as { id?: unknown; properties?: Props };
      if (init.properties !== undefined) {
        if (init.id !== serviceId)
          recorded.push(`init error recorded id ${String(init.id)}, not ${serviceId}`);
        const observed = init.properties.observedState;
        if (observed !== (shown ?? "") && !result.cutOff)
          recorded.push(`init error recorded ${String(observed)} but the server last showed ${shown}`);
        m.recorded = init.properties;
        recorded.push(...unlookedCommand(entries, result.elapsedMs, this.timeoutSeconds));
      } else if (applied.length > 0) {
        // Counted where it is judged, like leaks: the counts line sums violations of checked invariants.
        if (r.invariants.includes("recorded")) totals.lost++;
        recorded.push(
          `${what} threw a plain error after ${applied.length} command(s) changed the service ` +
            `(${applied.map((e) => `${e.command}: ${e.stateBefore} -> ${e.stateAfter}, answer ${e.status}`).join("; ")}): ` +
            `the resource is lost. Error: ${String((result.error as Error).message).slice(0, 300)}`,
        );
      }
    }
    report(r, "outcome", outcome);
    report(r, "recorded", recorded);
  }
  toString = () =>
    `converge to ${this.desired} (timeoutSeconds ${this.timeoutSeconds}, wait ${this.waitForState})` +
    describeFaults(this.faults) +
    describeStep(this.clockStep);
}

class Refresh implements fc.AsyncCommand<Model, Real> {
  constructor(readonly faults: Fault[]) {}
  check = (m: Readonly<Model>) => !m.dead && m.recorded !== undefined;
  async run(m: Model, r: Real): Promise<void> {
    const since = lastSeq(r.world);
    arm(r, this.faults);
    const olds = m.recorded as Props;
    const startedAt = Date.now();
    const result = await runAction(r.world, 10_000, () => provider.serviceRunStateRead(r.serviceId, olds));
    const entries = entriesSince(r.world, r.serviceId, since);
    afterAction(m, r, result, since, "read");
    const problems: string[] = [];
    report(
      r,
      "time",
      result.cutOff ? ["read was still running after 10 s: the watchdog closed the emulator"] : [],
    );
    if (result.cutOff) return;
    if (result.error !== undefined) {
      report(r, "outcome", unclearError(result.error, entries, r.world));
      return;
    }
    const { id, props } = result.value as { id: string; props: Props };
    const exists = r.world.emulator.service(r.serviceId) !== undefined;
    if (id === "" && exists)
      problems.push("read dropped the resource from the stack while the service exists");
    const shown = lastShownState(entries);
    // README: within the grace period after the recorded command, while no GET has shown it, a
    // read showing a state that command is sent from may predate it; read then keeps the observed
    // state it had, if that does not show the command done.
    const keptOverStale =
      mayPredateRecorded(olds.lastCommand, shown, startedAt) &&
      props.observedState === olds.observedState &&
      !satisfies(
        String(olds.observedState),
        targetOf((olds.lastCommand as { command: "start" | "stop" }).command),
      );
    if (id !== "" && props.observedState !== shown && !keptOverStale)
      problems.push(`read recorded ${String(props.observedState)}, the server showed ${shown}`);
    report(r, "recorded", problems);
    m.recorded = id === "" ? undefined : props;
  }
  toString = () => `refresh${describeFaults(this.faults)}`;
}

/**
 * Whether a read begun at `startedAt` and showing `shown` may predate the command the stack
 * recorded (judged at the read's start, which is no later than the provider's own judgment).
 */
function mayPredateRecorded(recorded: unknown, shown: string | undefined, startedAt: number): boolean {
  const { command, sentAt, seen } = (recorded ?? {}) as {
    command?: unknown;
    sentAt?: unknown;
    seen?: unknown;
  };
  if ((command !== "start" && command !== "stop") || typeof sentAt !== "string" || shown === undefined)
    return false;
  return (
    seen !== true &&
    startedAt - Date.parse(sentAt) < DEFAULT_TUNING.commandGraceMs * TIME_SCALE &&
    sentFrom(shown, command)
  );
}

export function runStateCommands(
  fault: fc.Arbitrary<Fault>,
  lags: number[] = [0, 0, 40, 250],
  extra: fc.Arbitrary<fc.AsyncCommand<Model, Real>>[] = [],
) {
  return fc.commands(
    [
      ...extra,
      fc.constantFrom(...lags).map((ms) => new SetLag(ms)),
      fc.constantFrom(...FLIP_STATES).map((state) => new Flip(state)),
      ...[1, 2, 3].map(() =>
        fc
          .tuple(
            fc.constantFrom<DesiredState>("running", "stopped"),
            fc.constantFrom(0.6, 1, 1.5),
            fc.boolean(),
            fc.array(fault, { minLength: 1, maxLength: 2 }),
            fc.option(clockStep(), { nil: undefined, freq: 2 }),
          )
          .map(
            ([desired, timeout, wait, faults, step]) =>
              new Converge(desired, timeout, wait || desired === "stopped", faults, step),
          ),
      ),
      fc.array(fault, { maxLength: 2 }).map((faults) => new Refresh(faults)),
    ],
    { maxCommands: 8 },
  );
}

/**
 * One model run: a fresh emulator and service (in a random first state; with `warehouse`, a member
 * of one), the commands, then close.
 */
export async function runModel(
  commands: Iterable<fc.AsyncCommand<Model, Real>>,
  initialState: string,
  invariants: Invariant[],
  warehouse?: WarehouseMix,
): Promise<void> {
  // The server's clock is its own: a step of ours (clockSteps.ts) does not move it.
  const world = await startWorld({ now: monotonicNow });
  const serviceId = seedService(world, initialState, warehouse);
  try {
    await fc.asyncModelRun(
      () => ({ model: { recorded: undefined, dead: false }, real: { world, serviceId, invariants } }),
      commands,
    );
  } finally {
    await world.close();
  }
}
