// The service state machine, as pure functions of the clock. A service stores its state and, if it
// is on its way somewhere, the state it reaches next and when; reading resolves that lazily, so no
// timers run and an injected clock moves services as well as real time does.
import type { TransitionTimes } from "../types";

/** The commands the state-change operation takes (the real API's `awake` is not emulated). */
export const COMMANDS = ["start", "stop"] as const;
export type Command = (typeof COMMANDS)[number];

export interface Phase {
  state: string;
  /** Where the service goes by itself, and at which clock time. */
  next?: { state: string; at: number };
}

/** Transitional states, the state each settles into, and which transition time it takes. */
const SETTLES_INTO: Readonly<Record<string, { state: string; duration: keyof TransitionTimes }>> = {
  starting: { state: "running", duration: "starting" },
  stopping: { state: "stopped", duration: "stopping" },
  awaking: { state: "running", duration: "awaking" },
  provisioning: { state: "running", duration: "provisioning" },
  terminating: { state: "terminated", duration: "terminating" },
  softdeleting: { state: "softdeleted", duration: "softdeleting" },
};

const STOPPABLE = new Set(["running", "idle", "degraded", "partially_running"]);
// Start on a service that is up or coming up changes nothing: the command is idempotent.
const ALREADY_STARTED = new Set([
  "running",
  "starting",
  "awaking",
  "provisioning",
  "degraded",
  "partially_running",
]);
const ALREADY_STOPPED = new Set(["stopped", "stopping"]);
/** States on the way out: no command can bring the service back. */
const BEYOND_COMMANDS = new Set(["terminating", "terminated", "failed", "softdeleting", "softdeleted"]);

/** Enters `state` at clock time `at`; a transitional state schedules where it settles. */
export function enterState(state: string, at: number, transitions: TransitionTimes): Phase {
  const settles = SETTLES_INTO[state];
  if (settles === undefined) return { state };
  return { state, next: { state: settles.state, at: at + transitions[settles.duration] } };
}

/** The phase at clock time `now`: follows every scheduled step that is due, in order. */
export function resolvePhase(phase: Phase, now: number, transitions: TransitionTimes): Phase {
  let current = phase;
  while (current.next !== undefined && current.next.at <= now) {
    current = enterState(current.next.state, current.next.at, transitions);
  }
  return current;
}

export type CommandDecision =
  | { kind: "transition"; state: string }
  | { kind: "unchanged" }
  | { kind: "conflict"; message: string }
  | { kind: "invalid"; message: string };

export function decideCommand(state: string, command: Command): CommandDecision {
  if (BEYOND_COMMANDS.has(state)) {
    return { kind: "invalid", message: `Cannot ${command} service in state ${state}` };
  }
  if (command === "stop" && STOPPABLE.has(state)) return { kind: "transition", state: "stopping" };
  if (command === "start" && state === "stopped") return { kind: "transition", state: "starting" };
  if (command === "start" && state === "idle") return { kind: "transition", state: "awaking" };
  if (command === "start" && ALREADY_STARTED.has(state)) return { kind: "unchanged" };
  if (command === "stop" && ALREADY_STOPPED.has(state)) return { kind: "unchanged" };
  // What is left conflicts with a transition in progress (start while stopping; stop while starting,
  // awaking or provisioning), or is a state this emulator does not know: the service is busy.
  return { kind: "conflict", message: `Conflict: service is ${state}; a transition is in progress` };
}
