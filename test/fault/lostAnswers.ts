// A lost answer is not a lost service: the check that a failed converge looked again after a
// command that changed the service.
import type { RequestLogEntry } from "../../src/emulator";
import { commandsApplied, lastShownState } from "./harness";

/**
 * A converge that failed soon after a PATCH changed the service, with no readable answer since,
 * stopped looking while it had time: the stack records a state the service has left. Near the
 * deadline there may be no time for a last look.
 */
export function unlookedCommand(
  entries: RequestLogEntry[],
  elapsedMs: number,
  timeoutSeconds: number,
): string[] {
  const applied = commandsApplied(entries);
  const last = applied[applied.length - 1];
  if (!last || lastShownState(entries.filter((e) => e.seq >= last.seq)) !== undefined) return [];
  if (elapsedMs >= timeoutSeconds * 1000 * 0.9) return [];
  return [
    `the converge ended ${Math.round(elapsedMs)} ms in, with no look after the ${last.command} that took the ` +
      `service from ${last.stateBefore} to ${last.stateAfter} (answer ${last.status}): it records a state the service has left`,
  ];
}
