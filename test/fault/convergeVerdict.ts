// What one converge (create or update) of a ServiceRunState must have done, judged from its result
// and the emulator's log: shared by the model of the provider functions and the plugin's property,
// so the dynamic provider and the plugin are held to the same invariants.
import { decide, satisfies, type DesiredState } from "../../src/provider/stateTable";
import type { RequestLogEntry } from "../../src/emulator";
import { unlookedCommand } from "./lostAnswers";
import {
  commandsApplied,
  commandsReached,
  forbiddenCommands,
  lastShownState,
  MAX_ATTEMPTS,
  MAX_COMMANDS,
  unclearError,
  type ActionResult,
  type World,
} from "./harness";

type Props = Record<string, unknown>;

export interface ConvergeCase {
  what: "create" | "update";
  serviceId: string;
  desired: DesiredState;
  timeoutSeconds: number;
  waitForState: boolean;
  /** A fault flips the service back after the converge: its state now says nothing. */
  flipsBack: boolean;
  /** Past this, the converge overran its deadline. */
  boundMs: number;
}

export interface ConvergeVerdict {
  time: string[];
  commands: string[];
  outcome: string[];
  recorded: string[];
  /** What the stack records now: the outputs, or an init failure's properties; undefined for none. */
  recordedProps?: Props;
  /** A plain error after a command changed the service: the resource is lost to the stack. */
  lost: boolean;
}

/**
 * Judges one converge. `initFailure` is the resource the failed converge asked the engine to
 * record (the dynamic provider's error with `id` and `properties`, or the plugin's
 * ErrorResourceInitFailed detail).
 */
export function judgeConverge(
  world: World,
  c: ConvergeCase,
  entries: RequestLogEntry[],
  result: ActionResult<Props>,
  initFailure: { id?: unknown; properties?: Props } | undefined,
): ConvergeVerdict {
  const verdict: ConvergeVerdict = {
    time: timeProblems(c, result),
    commands: commandProblems(c, entries),
    outcome: [],
    recorded: [],
    lost: false,
  };
  // Past the watchdog, the error is the emulator closing: nothing more to judge.
  if (result.cutOff) return verdict;
  if (result.error === undefined) judgeSuccess(world, c, entries, result.value as Props, verdict);
  else judgeFailure(world, c, entries, result, initFailure, verdict);
  return verdict;
}

function timeProblems(c: ConvergeCase, result: ActionResult<Props>): string[] {
  return [
    ...(result.elapsedMs > c.boundMs
      ? [`${c.what} took ${result.elapsedMs} ms; deadline + slack is ${c.boundMs} ms`]
      : []),
    ...(result.cutOff ? [`${c.what} was still running ${c.boundMs + 500} ms in: the watchdog ended it`] : []),
  ];
}

function commandProblems(c: ConvergeCase, entries: RequestLogEntry[]): string[] {
  const requestBound = MAX_ATTEMPTS * (Math.ceil((c.timeoutSeconds * 1000) / 16) + 2 * MAX_COMMANDS + 2);
  const reached = commandsReached(entries);
  return [
    ...forbiddenCommands(entries, c.desired),
    ...(reached.length > MAX_COMMANDS
      ? [`${reached.length} PATCHes reached the server in one ${c.what} (at most ${MAX_COMMANDS})`]
      : []),
    ...(entries.length > requestBound
      ? [`${entries.length} requests in one ${c.what} (bound ${requestBound})`]
      : []),
  ];
}

function judgeSuccess(
  world: World,
  c: ConvergeCase,
  entries: RequestLogEntry[],
  outs: Props,
  verdict: ConvergeVerdict,
): void {
  const observed = String(outs.observedState);
  const toward = decide(observed, c.desired);
  // waitForState false returns with what the PATCH answered (README), whatever that was.
  const last = entries[entries.length - 1];
  const patchAnswer = last?.method === "PATCH" && last.stateShown === observed;
  const accepted =
    satisfies(observed, c.desired) || (!c.waitForState && (toward.action === "wait" || patchAnswer));
  if (!accepted) verdict.outcome.push(`${c.what} succeeded with ${observed}, which is not ${c.desired}`);
  // No request at all: an update of options only, which keeps the old observation.
  const shown = lastShownState(entries);
  if (entries.length > 0 && observed !== shown)
    verdict.recorded.push(`${c.what} recorded ${observed} but the server last showed ${shown}`);
  const now = world.emulator.service(c.serviceId)?.state ?? "(gone)";
  // (An update with no request keeps its old observation: drift since is refresh's to find.)
  if (!c.flipsBack && c.waitForState && entries.length > 0 && !satisfies(now, c.desired))
    verdict.recorded.push(`${c.what} recorded ${observed} but the service is ${now}`);
  verdict.recordedProps = outs;
}

function judgeFailure(
  world: World,
  c: ConvergeCase,
  entries: RequestLogEntry[],
  result: ActionResult<Props>,
  init: { id?: unknown; properties?: Props } | undefined,
  verdict: ConvergeVerdict,
): void {
  verdict.outcome.push(...unclearError(result.error, entries, world));
  const applied = commandsApplied(entries);
  if (init?.properties !== undefined) {
    if (init.id !== c.serviceId)
      verdict.recorded.push(`init error recorded id ${String(init.id)}, not ${c.serviceId}`);
    const observed = init.properties.observedState;
    const shown = lastShownState(entries);
    if (observed !== (shown ?? ""))
      verdict.recorded.push(`init error recorded ${String(observed)} but the server last showed ${shown}`);
    verdict.recordedProps = init.properties;
    verdict.recorded.push(...unlookedCommand(entries, result.elapsedMs, c.timeoutSeconds));
  } else if (applied.length > 0) {
    verdict.lost = true;
    verdict.recorded.push(
      `${c.what} threw a plain error after ${applied.length} command(s) changed the service ` +
        `(${applied.map((e) => `${e.command}: ${e.stateBefore} -> ${e.stateAfter}, answer ${e.status}`).join("; ")}): ` +
        `the resource is lost. Error: ${String((result.error as Error).message).slice(0, 300)}`,
    );
  }
}
