// The three operations of the API, as functions from a parsed request to an outcome. They know
// nothing of HTTP, auth or faults: the handler wraps them.
import type { PathParams } from "./api-routes";
import { isPlainObject } from "../input/errors";
import type { ServiceStore, StoredService } from "../model/service-store";
import { COMMANDS, type Command } from "../model/state-machine";
import type { ServiceView, WarehouseRule } from "../types";
import { isUuid } from "../model/uuid";

export interface OperationOutcome {
  status: number;
  /** The Service of a successful read or state change. */
  result?: ServiceView;
  /** The message of an error answer. */
  error?: string;
  command?: string;
  /** True states of the service, when it was found. */
  stateBefore?: string;
  stateAfter?: string;
  warehouseRefusal?: WarehouseRule;
}

/** The organization id is checked before the service id. */
function invalidIds(params: PathParams): OperationOutcome | undefined {
  if (!isUuid(params.organizationId)) return { status: 400, error: "Invalid organization id" };
  if (!isUuid(params.serviceId)) return { status: 400, error: "Invalid service id" };
  return undefined;
}

/** The checks all three operations share: malformed ids, then an unknown service. */
function findService(
  store: ServiceStore,
  params: PathParams,
): { stored: StoredService } | { outcome: OperationOutcome } {
  const invalid = invalidIds(params);
  if (invalid !== undefined) return { outcome: invalid };
  const stored = store.findInOrganization(params.organizationId, params.serviceId);
  if (stored === undefined) return { outcome: { status: 404, error: "Service not found" } };
  return { stored };
}

export function getService(store: ServiceStore, params: PathParams): OperationOutcome {
  const found = findService(store, params);
  if ("outcome" in found) return found.outcome;
  const trueState = store.trueState(found.stored);
  // GET is the one answer the visibility lag applies to.
  const result = store.view(found.stored, store.visibleState(found.stored));
  return { status: 200, result, stateBefore: trueState, stateAfter: trueState };
}

type ParsedCommand = { command: Command } | { error: string; command?: string };

export function parseCommandBody(body: Buffer): ParsedCommand {
  let value: unknown;
  try {
    value = JSON.parse(body.toString("utf8"));
  } catch (error) {
    const reason = body.length === 0 ? "the body is empty" : (error as Error).message;
    return { error: `Invalid JSON body: ${reason}` };
  }
  const quoted = COMMANDS.map((name) => `"${name}"`);
  if (!isPlainObject(value)) {
    return { error: `Invalid body: expected a JSON object {"command": ${quoted.join(" | ")}}` };
  }
  const command = value.command;
  const expected = `expected ${quoted.join(" or ")}`;
  if (command === undefined) return { error: `Invalid body: missing "command" (${expected})` };
  if ((COMMANDS as readonly unknown[]).includes(command)) return { command: command as Command };
  return {
    error: `Invalid command ${JSON.stringify(command)}: ${expected}`,
    command: typeof command === "string" ? command : undefined,
  };
}

export function changeState(
  store: ServiceStore,
  params: PathParams,
  body: Buffer,
  options: { ignoreCommand: boolean; flipBackAfterMs?: number },
): OperationOutcome {
  const invalid = invalidIds(params);
  if (invalid !== undefined) return invalid;
  // The request is checked in full (ids, then body) before the service is looked up.
  const parsed = parseCommandBody(body);
  if ("error" in parsed) return { status: 400, error: parsed.error, command: parsed.command };
  const found = findService(store, params);
  if ("outcome" in found) return { ...found.outcome, command: parsed.command };
  const { stored } = found;
  if (options.ignoreCommand) {
    const state = store.trueState(stored);
    return {
      status: 200,
      result: store.view(stored, state),
      command: parsed.command,
      stateBefore: state,
      stateAfter: state,
    };
  }
  const { decision, stateBefore, stateAfter } = store.applyCommand(stored, parsed.command);
  if (decision.kind === "transition" && options.flipBackAfterMs !== undefined) {
    store.scheduleReturn(stored, stateBefore, options.flipBackAfterMs);
  }
  const outcome = { command: parsed.command, stateBefore, stateAfter };
  if (decision.kind === "conflict") return { ...outcome, status: 409, error: decision.message };
  if (decision.kind === "invalid") return { ...outcome, status: 400, error: decision.message };
  if (decision.kind === "refused") {
    return { ...outcome, status: decision.status, error: decision.message, warehouseRefusal: decision.rule };
  }
  // The answer shows the command's effect at once (e.g. "stopping"): it is not lagged.
  return { ...outcome, status: 200, result: store.view(stored, stateAfter) };
}

export function deleteEndpoint(store: ServiceStore, params: PathParams): OperationOutcome {
  const found = findService(store, params);
  if ("outcome" in found) return found.outcome;
  const state = store.trueState(found.stored);
  const endpointId = params.endpointId ?? "";
  if (!found.stored.endpointIds.delete(endpointId)) {
    return {
      status: 404,
      error: "Reverse private endpoint not found",
      stateBefore: state,
      stateAfter: state,
    };
  }
  return { status: 200, stateBefore: state, stateAfter: state };
}
