// Warehouses: services that share one data set. The real service refuses to stop a primary while
// a secondary of its warehouse is not stopped; whether it refuses a secondary's start while the
// primary is stopped is not documented, so that rule is off unless asked for.
import type { Command } from "./state-machine";
import type { WarehouseRefusal, WarehouseRule, WarehouseRules } from "../types";

/** Membership as the GET shows it: a service with no warehouse id, or an odd one, is in none. */
export interface WarehouseMember {
  id: string;
  organizationId: string;
  fields: Record<string, unknown>;
}

export interface Refusal extends WarehouseRefusal {
  rule: WarehouseRule;
}

export const DEFAULT_WAREHOUSE_RULES: Readonly<WarehouseRules> = Object.freeze({
  primaryStop: Object.freeze({
    status: 400,
    message:
      "Cannot stop the primary service of a data warehouse while it has secondary services " +
      "that are not stopped: stop the secondary services first",
  }),
  secondaryStart: false,
});

// A secondary that is gone no longer holds the warehouse's data open.
const SECONDARY_AT_REST = new Set(["stopped", "terminated", "softdeleted"]);
const PRIMARY_DOWN = new Set(["stopped", "stopping"]);

function warehouseOf(member: WarehouseMember): string | undefined {
  const id = member.fields.dataWarehouseId;
  return typeof id === "string" && id.length > 0 ? id.toLowerCase() : undefined;
}

/**
 * The services of `service`'s warehouse in its organization, itself included: its own role keeps
 * it out of each rule.
 */
function membersOf<T extends WarehouseMember>(service: T, all: Iterable<T>): T[] {
  const warehouse = warehouseOf(service);
  if (warehouse === undefined) return [];
  const organization = service.organizationId.toLowerCase();
  return [...all].filter(
    (other) => warehouseOf(other) === warehouse && other.organizationId.toLowerCase() === organization,
  );
}

/**
 * The refusal of a command that would otherwise change `service`'s state, if a rule refuses it.
 * `stateOf` gives a member's true state now.
 */
export function warehouseRefusal<T extends WarehouseMember>(
  service: T,
  command: Command,
  all: Iterable<T>,
  stateOf: (member: T) => string,
  rules: WarehouseRules,
): Refusal | undefined {
  const role = service.fields.isPrimary;
  if (command === "stop" && role === true && rules.primaryStop !== false) {
    const running = membersOf(service, all).filter(
      (other) => other.fields.isPrimary === false && !SECONDARY_AT_REST.has(stateOf(other)),
    );
    if (running.length > 0) return { ...rules.primaryStop, rule: "primaryStop" };
  }
  if (command === "start" && role === false && rules.secondaryStart !== false) {
    const primaries = membersOf(service, all).filter((other) => other.fields.isPrimary === true);
    if (primaries.some((primary) => PRIMARY_DOWN.has(stateOf(primary)))) {
      return { ...rules.secondaryStart, rule: "secondaryStart" };
    }
  }
  return undefined;
}
