import type { ServiceCommand } from "../api/options";

/* How each API state counts for a desired run state: the README's table. */

/** The run state a ServiceRunState declares. */
export type DesiredState = "running" | "stopped";

export type Decision =
  /** `warning` set when the state only counts as satisfied (degraded). */
  | { action: "satisfied"; warning?: string }
  | { action: ServiceCommand }
  | { action: "wait"; reason: "transition" | "conflicting-transition" | "unknown" }
  /** No command can help: the service is gone or broken. */
  | { action: "fail"; reason: string };

const SETTLED_RUNNING = ["running", "idle"];
const GOING_UP = ["starting", "awaking", "provisioning", "partially_running"];
const TERMINAL = ["terminating", "terminated", "failed", "softdeleting", "softdeleted"];
const DEGRADED_WARNING = "the service is degraded: it counts as running, but check its health";
const TERMINAL_ADVICE = "Remove this resource from the program, or point it at another service.";

/** Every state the table names; anything else is an unknown state (the API adds states). */
export const KNOWN_STATES: readonly string[] = Object.freeze([
  ...SETTLED_RUNNING,
  "degraded",
  "stopped",
  ...GOING_UP,
  "stopping",
  ...TERMINAL,
]);

export function decide(observedState: string, desired: DesiredState): Decision {
  if (TERMINAL.includes(observedState)) {
    const reason = `the service is ${observedState}: it cannot be made ${desired}. ${TERMINAL_ADVICE}`;
    return { action: "fail", reason };
  }
  if (desired === "running") {
    if (SETTLED_RUNNING.includes(observedState)) return { action: "satisfied" };
    if (observedState === "degraded") return { action: "satisfied", warning: DEGRADED_WARNING };
    if (observedState === "stopped") return { action: "start" };
    if (GOING_UP.includes(observedState)) return { action: "wait", reason: "transition" };
    if (observedState === "stopping") return { action: "wait", reason: "conflicting-transition" };
  } else {
    if (observedState === "stopped") return { action: "satisfied" };
    if (SETTLED_RUNNING.includes(observedState) || observedState === "degraded") return { action: "stop" };
    if (observedState === "stopping") return { action: "wait", reason: "transition" };
    if (GOING_UP.includes(observedState)) return { action: "wait", reason: "conflicting-transition" };
  }
  return { action: "wait", reason: "unknown" };
}

/** Whether the table sends `command` from `state`: right after it, a GET may still show such a state. */
export function sentFrom(state: string, command: ServiceCommand): boolean {
  return decide(state, targetOf(command)).action === command;
}

const TARGETS: Readonly<Record<ServiceCommand, DesiredState>> = { start: "running", stop: "stopped" };
export const targetOf = (command: ServiceCommand): DesiredState => TARGETS[command];

/** Whether an observed state already satisfies the desired one; no state at all satisfies nothing. */
export function satisfies(observedState: string | undefined, desired: DesiredState): boolean {
  return decide(observedState ?? "", desired).action === "satisfied";
}
