import type { ServiceCommand } from "../api/options";
import { ApiError, QUOTED_CHARS } from "../api/errors";
import { truncate } from "../api/redact";
import type { Service } from "../api/schemas";
import { isGone } from "./resourceErrors";

/*
 * Warehouses share one data set: a primary's stop is refused while a secondary is not stopped, and a
 * secondary's start may be while its primary is stopped. No order of resources suits both, so such a
 * refusal means wait and try again.
 */

/**
 * Statuses with a meaning of their own, never a warehouse's refusal. A 409, waited out either way, counts
 * as the warehouse's to a command it can refuse, so that a deadline names the warehouse.
 */
const OWN_MEANING: readonly number[] = [401, 403, 404, 429];

export interface WarehouseWait {
  warehouseId: string;
  role: "primary" | "secondary";
  command: ServiceCommand;
  refusals: number;
  /** The last refusal as the client words it (status, server message, request id). */
  lastAnswer: string;
}

/** The wait `error` starts or continues if it is a 4xx, of no meaning of its own, to a command the role can be refused. */
export function warehouseRefusal(
  error: unknown,
  service: Service | undefined,
  command: ServiceCommand,
  waiting: WarehouseWait | undefined,
): WarehouseWait | undefined {
  if (!(error instanceof ApiError) || error.status === undefined) return undefined;
  if (error.status < 400 || error.status > 499 || OWN_MEANING.includes(error.status)) return undefined;
  if (isGone(error, ["service"])) return undefined;
  const warehouseId = service?.dataWarehouseId;
  if (typeof warehouseId !== "string" || warehouseId === "") return undefined;
  const role =
    command === "stop" && service?.isPrimary === true
      ? "primary"
      : command === "start" && service?.isPrimary === false
        ? "secondary"
        : undefined;
  if (role === undefined) return undefined;
  const refusals = waiting?.warehouseId === warehouseId ? waiting.refusals + 1 : 1;
  return { warehouseId, role, command, refusals, lastAnswer: error.message };
}

export function warehouseBlocker(wait: WarehouseWait): string {
  // The id comes from the API: a message names it, cut as quoted values are, never carries it whole.
  const warehouse = truncate(wait.warehouseId, QUOTED_CHARS);
  return wait.role === "primary"
    ? `it is the primary of warehouse ${warehouse}, whose secondary services must be stopped first`
    : `it is a secondary of warehouse ${warehouse}, whose primary service must be started first`;
}

/** The deadline error's account of the wait. */
export function warehouseTimeoutNote(wait: WarehouseWait): string {
  const times = wait.refusals === 1 ? "once" : `${wait.refusals} times`;
  const blocker = `${warehouseBlocker(wait)}, in the same stack or by hand`;
  return ` (${blocker}; the ${wait.command} was refused ${times}, last: ${wait.lastAnswer})`;
}
