/**
 * How each API state counts for a desired run state (the table in the README, "How each API state counts").
 * Pure: the table test drives it directly, and the converger only asks it what to do next.
 */

export type DesiredState = "running" | "stopped";

/** What to do next when the service is in some state and should be in another. */
export type Decision =
  /** Nothing to do; `warning` set when the state only counts as satisfied (degraded). */
  | { action: "satisfied"; warning?: string }
  | { action: "start" }
  | { action: "stop" }
  /**
   * Poll again later: a transition towards the target is under way, a transition the other
   * way must settle before a command can be sent, or the state is one the table does not know.
   */
  | { action: "wait"; reason: "transition" | "conflicting-transition" | "unknown" }
  /** No command can help: the service is gone or broken. */
  | { action: "fail"; reason: string };

const SETTLED_RUNNING = ["running", "idle"];
const GOING_UP = ["starting", "awaking", "provisioning", "partially_running"];
const TERMINAL = ["terminating", "terminated", "failed", "softdeleting", "softdeleted"];

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
    return {
      action: "fail",
      reason:
        `the service is ${observedState}: it cannot be made ${desired}. ` +
        `Remove this resource from the program, or point it at another service.`,
    };
  }
  if (desired === "running") {
    if (SETTLED_RUNNING.includes(observedState)) return { action: "satisfied" };
    if (observedState === "degraded") {
      return {
        action: "satisfied",
        warning: "the service is degraded: it counts as running, but check its health",
      };
    }
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

/**
 * Whether the table sends `command` from `state` (start: `stopped`; stop: `running`, `idle`,
 * `degraded`). Right after the command, a GET may still show such a state: the server has not
 * made the command visible yet.
 */
export function sentFrom(state: string, command: "start" | "stop"): boolean {
  return decide(state, targetOf(command)).action === command;
}

/** The run state a command is sent to reach. */
export function targetOf(command: "start" | "stop"): DesiredState {
  return command === "start" ? "running" : "stopped";
}

/** Whether an observed state already satisfies the desired one (diff uses it: no API call). */
export function satisfies(observedState: string | undefined, desired: DesiredState): boolean {
  // No state at all is an unknown state: it satisfies nothing.
  return decide(observedState ?? "", desired).action === "satisfied";
}
