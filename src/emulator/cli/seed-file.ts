// The CLI's --seed file: the emulator's options as JSON. Every problem is reported at once, named
// by its path in the file (e.g. "services[1].organizationId must be a uuid").
import { readFileSync } from "node:fs";
import { formatValue, EmulatorInputError, IssueList, isPlainObject } from "../input/errors";
import { readRateLimit, readSeedService, readTransitions } from "../input/seed";
import { readKeyId, readMilliseconds, readNonEmptyString, reportUnknownKeys } from "../input/values";
import { readWarehouseRules } from "../input/warehouse-rules";
import type { RateLimit, SeedService, TransitionTimes, WarehouseRules } from "../types";

export interface SeedFile {
  keyId?: string;
  keySecret?: string;
  transitions?: Partial<TransitionTimes>;
  visibilityLagMs?: number;
  rateLimit?: RateLimit | false;
  services: SeedService[];
  warehouseRules?: Partial<WarehouseRules>;
}

const SEED_FILE_KEYS = new Set([
  "keyId",
  "keySecret",
  "transitions",
  "visibilityLagMs",
  "rateLimit",
  "services",
  "warehouseRules",
]);

export function parseSeedFile(text: string): SeedFile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new EmulatorInputError([`is not valid JSON: ${(error as Error).message}`]);
  }
  const issues = new IssueList();
  if (!isPlainObject(value)) {
    issues.add("the top level", `must be an object with a "services" array, got ${formatValue(value)}`);
    issues.throwIfAny();
  }
  const input = value as Record<string, unknown>;
  reportUnknownKeys(input, SEED_FILE_KEYS, "", issues);
  const seed: SeedFile = { services: [] };
  if (input.keyId !== undefined) seed.keyId = readKeyId(input.keyId, "keyId", issues);
  if (input.keySecret !== undefined)
    seed.keySecret = readNonEmptyString(input.keySecret, "keySecret", issues);
  if (input.transitions !== undefined)
    seed.transitions = readTransitions(input.transitions, "transitions", issues);
  if (input.visibilityLagMs !== undefined) {
    seed.visibilityLagMs = readMilliseconds(input.visibilityLagMs, "visibilityLagMs", issues);
  }
  if (input.rateLimit !== undefined) seed.rateLimit = readRateLimit(input.rateLimit, "rateLimit", issues);
  if (input.warehouseRules !== undefined) {
    seed.warehouseRules = readWarehouseRules(input.warehouseRules, "warehouseRules", issues);
  }
  if (Array.isArray(input.services)) {
    const firstIndexOfId = new Map<string, number>();
    input.services.forEach((service, index) => {
      const parsed = readSeedService(service, `services[${index}]`, issues);
      if (parsed === undefined) return;
      seed.services.push(parsed);
      const id = parsed.id?.toLowerCase();
      if (id === undefined) return;
      const first = firstIndexOfId.get(id);
      if (first !== undefined)
        issues.add(`services[${index}].id`, `repeats services[${first}].id (${parsed.id})`);
      else firstIndexOfId.set(id, index);
    });
  } else {
    issues.add("services", `must be an array of services, got ${formatValue(input.services)}`);
  }
  issues.throwIfAny();
  return seed;
}

/** Reads and validates a seed file; errors name the file. */
export function loadSeedFile(path: string): SeedFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new EmulatorInputError([`seed file ${path} cannot be read: ${(error as Error).message}`]);
  }
  try {
    return parseSeedFile(text);
  } catch (error) {
    if (!(error instanceof EmulatorInputError)) throw error;
    throw new EmulatorInputError(error.issues.map((issue) => `seed file ${path}: ${issue}`));
  }
}
