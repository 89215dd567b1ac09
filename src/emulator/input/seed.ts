// Reading untrusted seed data: from startEmulator options, the control surface and the CLI's
// seed file alike, so all three accept exactly the same shapes and report the same errors.
import { formatValue, IssueList, isPlainObject } from "./errors";
import type { RateLimit, ScheduledState, SeedService, TransitionTimes } from "../types";
import { readMilliseconds, readNonEmptyString, readUuid, reportUnknownKeys } from "./values";

const SEED_SERVICE_KEYS = new Set([
  "organizationId",
  "id",
  "name",
  "state",
  "reversePrivateEndpointIds",
  "fields",
  "dataWarehouseId",
  "isPrimary",
  "isReadonly",
]);
const TRANSITION_KEYS: ReadonlyArray<keyof TransitionTimes> = [
  "starting",
  "stopping",
  "awaking",
  "provisioning",
  "terminating",
  "softdeleting",
];
// These have dedicated seed properties (or are internal); two ways to set them would disagree.
const RESERVED_FIELD_KEYS = new Set(["id", "state", "organizationId"]);

export function readSeedService(value: unknown, path: string, issues: IssueList): SeedService | undefined {
  if (!isPlainObject(value)) {
    issues.add(path, `must be an object, got ${formatValue(value)}`);
    return undefined;
  }
  const before = issues.issues.length;
  reportUnknownKeys(value, SEED_SERVICE_KEYS, path, issues);
  const seed: SeedService = {
    organizationId: readUuid(value.organizationId, `${path}.organizationId`, issues) ?? "",
  };
  if (value.id !== undefined) seed.id = readUuid(value.id, `${path}.id`, issues);
  if (value.name !== undefined) {
    if (typeof value.name === "string") seed.name = value.name;
    else issues.add(`${path}.name`, `must be a string, got ${formatValue(value.name)}`);
  }
  if (value.state !== undefined) seed.state = readNonEmptyString(value.state, `${path}.state`, issues);
  if (value.reversePrivateEndpointIds !== undefined) {
    const ids = value.reversePrivateEndpointIds;
    if (Array.isArray(ids)) {
      seed.reversePrivateEndpointIds = ids.map(
        (id, index) => readNonEmptyString(id, `${path}.reversePrivateEndpointIds[${index}]`, issues) ?? "",
      );
    } else {
      issues.add(`${path}.reversePrivateEndpointIds`, `must be an array of strings, got ${formatValue(ids)}`);
    }
  }
  if (value.dataWarehouseId !== undefined) {
    seed.dataWarehouseId = readUuid(value.dataWarehouseId, `${path}.dataWarehouseId`, issues);
  }
  for (const key of ["isPrimary", "isReadonly"] as const) {
    if (value[key] === undefined) continue;
    if (typeof value[key] === "boolean") seed[key] = value[key];
    else issues.add(`${path}.${key}`, `must be a boolean, got ${formatValue(value[key])}`);
  }
  if (value.fields !== undefined) {
    if (isPlainObject(value.fields)) {
      for (const [key, field] of Object.entries(value.fields)) {
        // `state: null` is allowed: the API shows a null state while the state machine runs on.
        if (RESERVED_FIELD_KEYS.has(key) && !(key === "state" && field === null)) {
          issues.add(`${path}.fields.${key}`, `cannot be set through fields (use ${path}.${key} instead)`);
        }
      }
      seed.fields = structuredClone(value.fields);
    } else {
      issues.add(`${path}.fields`, `must be an object, got ${formatValue(value.fields)}`);
    }
  }
  return issues.issues.length === before ? seed : undefined;
}

export function readTransitions(
  value: unknown,
  path: string,
  issues: IssueList,
): Partial<TransitionTimes> | undefined {
  if (!isPlainObject(value)) {
    issues.add(path, `must be an object, got ${formatValue(value)}`);
    return undefined;
  }
  reportUnknownKeys(value, new Set(TRANSITION_KEYS), path, issues);
  const transitions: Partial<TransitionTimes> = {};
  for (const key of TRANSITION_KEYS) {
    if (value[key] === undefined) continue;
    const ms = readMilliseconds(value[key], `${path}.${key}`, issues);
    if (ms !== undefined) transitions[key] = ms;
  }
  return transitions;
}

export function readRateLimit(
  value: unknown,
  path: string,
  issues: IssueList,
): RateLimit | false | undefined {
  if (value === false) return false;
  if (!isPlainObject(value)) {
    issues.add(path, `must be false or {"requests": n, "windowMs": ms}, got ${formatValue(value)}`);
    return undefined;
  }
  reportUnknownKeys(value, new Set(["requests", "windowMs", "reset"]), path, issues);
  const { requests, windowMs, reset } = value;
  let valid = true;
  if (reset !== undefined && reset !== "remaining" && reset !== "window") {
    issues.add(`${path}.reset`, `must be "remaining" or "window", got ${formatValue(reset)}`);
    valid = false;
  }
  if (typeof requests !== "number" || !Number.isInteger(requests) || requests < 1) {
    issues.add(`${path}.requests`, `must be an integer >= 1, got ${formatValue(requests)}`);
    valid = false;
  }
  if (typeof windowMs !== "number" || !Number.isFinite(windowMs) || windowMs <= 0) {
    issues.add(`${path}.windowMs`, `must be a number of milliseconds > 0, got ${formatValue(windowMs)}`);
    valid = false;
  }
  if (!valid) return undefined;
  const named = reset as RateLimit["reset"];
  return { requests: requests as number, windowMs: windowMs as number, ...(named ? { reset: named } : {}) };
}

export function readScheduledState(
  value: unknown,
  path: string,
  issues: IssueList,
): ScheduledState | undefined {
  if (!isPlainObject(value)) {
    issues.add(path, `must be {"state": string, "afterMs": ms}, got ${formatValue(value)}`);
    return undefined;
  }
  reportUnknownKeys(value, new Set(["state", "afterMs"]), path, issues);
  const state = readNonEmptyString(value.state, `${path}.state`, issues);
  const afterMs = readMilliseconds(value.afterMs, `${path}.afterMs`, issues);
  return state !== undefined && afterMs !== undefined ? { state, afterMs } : undefined;
}

/** Validates a seed given to the programmatic API; throws EmulatorInputError listing every problem. */
export function parseSeedService(value: unknown, path = "service"): SeedService {
  const issues = new IssueList();
  const seed = readSeedService(value, path, issues);
  issues.throwIfAny();
  return seed as SeedService;
}
