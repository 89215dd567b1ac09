// The model of one ServiceRunState resource and its service, for fc.commands: random schedules
// of faults, visibility lag and out-of-band flips, between converges (create, or update once the
// resource is recorded) and refreshes through the real provider functions. The model keeps what
// the stack recorded; after each action the chosen invariants are checked against the emulator.
import assert from "node:assert/strict";
import fc from "fast-check";
import * as provider from "../../src/provider";
import { satisfies, sentFrom, targetOf, type DesiredState } from "../../src/provider/stateTable";
import { DEFAULT_TUNING } from "../../src/provider/converge";
import type { Fault } from "../../src/emulator";
import { clockStep, describeStep, withClockStep, type ClockStep } from "./clockSteps";
import { judgeConverge } from "./convergeVerdict";
import { monotonicNow } from "../helpers/wallClock";
import { FLIP_STATES } from "./faults";
import { seedService, type WarehouseMix } from "./warehouses";
import {
  countRetries,
  entriesSince,
  findLeaks,
  lastSeq,
  lastShownState,
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
    const { desired, timeoutSeconds, waitForState } = this;
    const thrown = result.error as { id?: unknown; properties?: Props } | undefined;
    const verdict = judgeConverge(
      world,
      { what, serviceId, desired, timeoutSeconds, waitForState, flipsBack, boundMs },
      entries,
      result,
      thrown?.properties !== undefined ? thrown : undefined,
    );
    if (verdict.recordedProps) m.recorded = verdict.recordedProps;
    // Counted where it is judged, like leaks: the counts line sums violations of checked invariants.
    if (verdict.lost && r.invariants.includes("recorded")) totals.lost++;
    for (const group of ["time", "commands", "outcome", "recorded"] as const)
      report(r, group, verdict[group]);
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
