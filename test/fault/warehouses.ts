// Warehouses in the fault suite's model, off unless a property asks for them: the resource's
// service is seeded as a primary (or a secondary) of a warehouse, other members change state out
// of band (as the other resources of a stack, or a person, would), and the emulator refuses what
// the real service refuses. What the invariants then expect of a refusal is judged here.
import fc from "fast-check";
import type { RequestLogEntry, ScheduledState } from "../../src/emulator";
import { warehouseSeed } from "../../src/emulator";
import type { World } from "./harness";

export interface WarehouseMix {
  /** The resource's service is its warehouse's primary, or its first secondary (others[0] is then the primary). */
  role: "primary" | "secondary";
  /** Services of the warehouse besides the resource's; default 2. */
  others?: number;
  /** Turns on the emulator's refusal of a secondary's start while its primary is down. */
  secondaryStart?: boolean;
}

/** The other members of each world's warehouse, by position. */
const membersOf = new WeakMap<World, string[]>();

/**
 * Seeds the resource's service and returns its id: alone, or in a warehouse whose other members
 * start where they hold it up (a primary's secondaries running, a secondary's primary stopped).
 */
export function seedService(world: World, initialState: string, mix?: WarehouseMix): string {
  if (mix === undefined) {
    return world.emulator.addService({
      organizationId: world.organizationId,
      name: "analytics",
      state: initialState,
    }).id;
  }
  const state = mix.role === "primary" ? "running" : "stopped";
  // A secondary's warehouse holds at least its primary besides it.
  const secondaries = Math.max(mix.role === "secondary" ? 1 : 0, mix.others ?? 2);
  const seed = warehouseSeed({ organizationId: world.organizationId, secondaries, state });
  const [own, ...others] =
    mix.role === "primary"
      ? [seed.primary, ...seed.secondaries]
      : [seed.secondaries[0], seed.primary, ...seed.secondaries.slice(1)];
  world.emulator.addService({ ...own, state: initialState });
  for (const member of others) world.emulator.addService(member);
  if (mix.secondaryStart) {
    world.emulator.setWarehouseRules({
      secondaryStart: {
        status: 400,
        message: "Cannot start a secondary service while its primary is stopped",
      },
    });
  }
  membersOf.set(
    world,
    others.map((member) => member.id),
  );
  return own.id;
}

/** A member of the warehouse changes state out of band, and settles later when `then` says so. */
class MemberFlip implements fc.AsyncCommand<{ dead: boolean }, { world: World }> {
  constructor(
    readonly index: number,
    readonly state: string,
    readonly then?: ScheduledState,
  ) {}
  check = (m: Readonly<{ dead: boolean }>) => !m.dead;
  async run(_m: { dead: boolean }, r: { world: World }): Promise<void> {
    const members = membersOf.get(r.world) ?? [];
    const id = members[this.index % Math.max(1, members.length)];
    if (id !== undefined) r.world.emulator.setState(id, this.state, this.then);
  }
  toString = () =>
    `warehouse member ${this.index} to ${this.state}` +
    (this.then ? `, ${this.then.state} after ${this.then.afterMs}ms` : "");
}

/** Out-of-band changes of the other members, some settling while a converge may be waiting. */
export function memberFlips(mix: WarehouseMix): fc.Arbitrary<MemberFlip> {
  const index = fc.nat({ max: Math.max(0, (mix.others ?? 2) - 1) });
  const settleMs = fc.constantFrom(0, 100, 400);
  return fc.oneof(
    fc.tuple(index, fc.constantFrom("running", "stopped")).map(([at, state]) => new MemberFlip(at, state)),
    fc
      .tuple(index, fc.constantFrom(["stopping", "stopped"], ["starting", "running"]), settleMs)
      .map(([at, [state, next], afterMs]) => new MemberFlip(at, state, { state: next, afterMs })),
  );
}

/**
 * The converge's error when it ended waiting on a warehouse (the last command was refused by a
 * warehouse rule, the refusal reached the client, and nothing failed since): it names the warehouse and what must happen first.
 * Undefined when the error ended otherwise, and the usual checks apply.
 */
export function warehouseWaitProblems(
  message: string,
  entries: RequestLogEntry[],
  world: World,
): string[] | undefined {
  const patches = entries.filter((entry) => entry.method === "PATCH");
  const refused = patches[patches.length - 1];
  if (refused?.warehouseRefusal === undefined || refused.serviceId === undefined) return undefined;
  // A refusal whose answer was dropped or stalled never reached the client: nothing to name.
  if (typeof refused.status !== "number") return undefined;
  const after = entries.slice(entries.indexOf(refused) + 1);
  if (after.some((entry) => entry.status !== 200)) return undefined;
  const warehouse = String(world.emulator.service(refused.serviceId)?.dataWarehouseId);
  const first = refused.warehouseRefusal === "primaryStop" ? /secondar/i : /primary/i;
  const problems: string[] = [];
  if (!message.includes(warehouse))
    problems.push(`a wait on warehouse ${warehouse} does not name it: ${message.slice(0, 300)}`);
  if (!first.test(message))
    problems.push(
      `a wait on warehouse ${warehouse} does not say what must happen first: ${message.slice(0, 300)}`,
    );
  return problems;
}
