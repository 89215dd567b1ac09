/*
 * A resource's id and its properties name the same thing. State can be edited by hand (`pulumi
 * state edit`), imported or written by another version; an operation that acted on the
 * properties alone could stop or delete something the id never named. So every operation given
 * an id checks it against the properties first, and refuses, naming both, when they differ.
 */

/** What an id or the properties name, for messages: the parts in order, each labelled. */
export type Named = readonly (readonly [label: string, value: unknown])[];

/** Long or hostile values are cut: a message names them, it does not carry them. */
function shown(value: unknown): string {
  const text = typeof value === "string" ? value : String(value);
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text);
}

const describe = (named: Named) => named.map(([label, value]) => `${label} ${shown(value)}`).join(", ");

/**
 * Refuses `operation` when `id` is not the id the properties make (`expected`). `fromId` says
 * what the id names (its parts as this provider writes them), `fromProperties` what the
 * properties name.
 */
export function requireIdOfProperties(
  operation: string,
  id: unknown,
  expected: string,
  fromId: Named,
  fromProperties: Named,
): void {
  if (id === expected) return;
  throw new Error(
    `${operation} refused: the resource id names ${describe(fromId)}, but its properties name ` +
      `${describe(fromProperties)}. The state was edited, imported or written by another version; ` +
      `nothing was sent. Make them agree (pulumi state edit), or drop the resource from the state ` +
      `(pulumi state delete <urn>) and import it again.`,
  );
}

/** ServiceRunState's id is its service id (create makes it so): refuses `operation` unless the properties name that service. */
export function requireSameService(operation: string, id: unknown, serviceId: unknown): void {
  requireIdOfProperties(operation, id, String(serviceId), [["service", id]], [["service", serviceId]]);
}
