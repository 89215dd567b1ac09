// The emulator's services: their fields, their state over time, their reverse private endpoints,
// and which state GET shows while a command is not yet visible.
import { randomUUID } from "node:crypto";
import { EmulatorInputError } from "../input/errors";
import { defaultServiceFields } from "./service-fields";
import {
  type Command,
  type CommandDecision,
  decideCommand,
  enterState,
  type Phase,
  resolvePhase,
} from "./state-machine";
import { type Refusal, warehouseRefusal } from "./warehouse";
import type { ScheduledState, SeedService, ServiceView, TransitionTimes, WarehouseRules } from "../types";

export interface StoredService {
  /** As seeded; lookups ignore case, as uuids do. */
  id: string;
  organizationId: string;
  fields: Record<string, unknown>;
  phase: Phase;
  /** Until `until`, GET shows `state`: the state before the last applied command. */
  lagged?: { state: string; until: number };
  endpointIds: Set<string>;
}

/** Live settings, read at each use so that changes apply from the next request on. */
export interface StoreSettings {
  now(): number;
  transitions(): TransitionTimes;
  visibilityLagMs(): number;
  warehouseRules(): WarehouseRules;
}

export interface CommandResult {
  decision: CommandDecision | ({ kind: "refused" } & Refusal);
  stateBefore: string;
  stateAfter: string;
}

export class ServiceStore {
  private readonly services = new Map<string, StoredService>();

  constructor(private readonly settings: StoreSettings) {}

  /** Adds a validated seed. */
  add(seed: SeedService): StoredService {
    const id = seed.id ?? randomUUID();
    if (this.services.has(id.toLowerCase())) {
      throw new EmulatorInputError([`service ${id} already exists`], 409);
    }
    const now = this.settings.now();
    const fields = { ...defaultServiceFields(id, new Date(now)), ...structuredClone(seed.fields ?? {}) };
    if (seed.name !== undefined) fields.name = seed.name;
    for (const key of ["dataWarehouseId", "isPrimary", "isReadonly"] as const) {
      if (seed[key] !== undefined) fields[key] = seed[key];
    }
    const stored: StoredService = {
      id,
      organizationId: seed.organizationId,
      fields,
      phase: enterState(seed.state ?? "running", now, this.settings.transitions()),
      endpointIds: new Set(seed.reversePrivateEndpointIds ?? []),
    };
    this.services.set(id.toLowerCase(), stored);
    return stored;
  }

  remove(serviceId: string): boolean {
    return this.services.delete(serviceId.toLowerCase());
  }

  get(serviceId: string): StoredService | undefined {
    return this.services.get(serviceId.toLowerCase());
  }

  /** The service only if it belongs to the organization: another organization's is not found. */
  findInOrganization(organizationId: string, serviceId: string): StoredService | undefined {
    const stored = this.get(serviceId);
    return stored?.organizationId.toLowerCase() === organizationId.toLowerCase() ? stored : undefined;
  }

  trueState(stored: StoredService): string {
    stored.phase = resolvePhase(stored.phase, this.settings.now(), this.settings.transitions());
    return stored.phase.state;
  }

  /** The state GET shows: the true one, or the pre-command one while the lag lasts. */
  visibleState(stored: StoredService): string {
    if (stored.lagged !== undefined && this.settings.now() < stored.lagged.until) return stored.lagged.state;
    stored.lagged = undefined;
    return this.trueState(stored);
  }

  view(stored: StoredService, state: string): ServiceView {
    // A deep copy, so that callers (tests included) cannot edit the store through it; state goes
    // after region, where the spec lists it.
    // A seed's `fields.state: null` shows a null state (the machine underneath runs on).
    const shown = stored.fields.state === null ? null : state;
    const view: Record<string, unknown> = { id: stored.id };
    for (const [key, value] of Object.entries(structuredClone(stored.fields))) {
      if (key === "state") continue;
      view[key] = value;
      if (key === "region") view.state = shown;
    }
    view.state = shown;
    return view as ServiceView;
  }

  /** Out-of-band state change: immediate and visible at once (it is not a command). */
  setState(stored: StoredService, state: string, then?: ScheduledState): void {
    const now = this.settings.now();
    stored.phase = then
      ? { state, next: { state: then.state, at: now + then.afterMs } }
      : enterState(state, now, this.settings.transitions());
    stored.lagged = undefined;
  }

  /** Someone else's command: the service goes back to `state` after `afterMs`, whatever it is doing. */
  scheduleReturn(stored: StoredService, state: string, afterMs: number): void {
    stored.phase = { state: stored.phase.state, next: { state, at: this.settings.now() + afterMs } };
  }

  applyCommand(stored: StoredService, command: Command): CommandResult {
    const stateBefore = this.trueState(stored);
    const decision = decideCommand(stateBefore, command);
    const refusal =
      decision.kind === "transition"
        ? warehouseRefusal(
            stored,
            command,
            this.services.values(),
            (member) => this.trueState(member),
            this.settings.warehouseRules(),
          )
        : undefined;
    if (refusal !== undefined)
      return { decision: { kind: "refused", ...refusal }, stateBefore, stateAfter: stateBefore };
    if (decision.kind === "transition") {
      const now = this.settings.now();
      stored.phase = enterState(decision.state, now, this.settings.transitions());
      const lagMs = this.settings.visibilityLagMs();
      if (lagMs > 0) stored.lagged = { state: stateBefore, until: now + lagMs };
    }
    return { decision, stateBefore, stateAfter: stored.phase.state };
  }
}
