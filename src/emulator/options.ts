// startEmulator's options, validated once with every problem listed, then filled with defaults.
import { DEFAULT_HOST, DEFAULT_TRANSITIONS, generateKeyId, generateKeySecret } from "./defaults";
import { formatValue, IssueList, isPlainObject } from "./input/errors";
import { readRateLimit, readSeedService, readTransitions } from "./input/seed";
import { readKeyId, readMilliseconds, readNonEmptyString } from "./input/values";
import { readWarehouseRules } from "./input/warehouse-rules";
import { DEFAULT_WAREHOUSE_RULES } from "./model/warehouse";
import type { EmulatorOptions, RateLimit, SeedService, TransitionTimes, WarehouseRules } from "./types";

export interface ResolvedOptions {
  host: string;
  port: number;
  keyId: string;
  keySecret: string;
  transitions: TransitionTimes;
  visibilityLagMs: number;
  rateLimit: RateLimit | false;
  services: SeedService[];
  warehouseRules: WarehouseRules;
  now: () => number;
  random: () => number;
}

export function resolveOptions(options: EmulatorOptions = {}): ResolvedOptions {
  const issues = new IssueList();
  if (!isPlainObject(options)) issues.add("options", `must be an object, got ${formatValue(options)}`);
  const { host, port, keyId, keySecret, now, random } = options;
  if (host !== undefined) readNonEmptyString(host, "options.host", issues);
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) {
    issues.add("options.port", `must be an integer from 0 to 65535, got ${formatValue(port)}`);
  }
  if (keyId !== undefined) readKeyId(keyId, "options.keyId", issues);
  if (keySecret !== undefined) readNonEmptyString(keySecret, "options.keySecret", issues);
  if (now !== undefined && typeof now !== "function") issues.add("options.now", "must be a function");
  if (random !== undefined && typeof random !== "function")
    issues.add("options.random", "must be a function");
  const transitions =
    options.transitions === undefined
      ? {}
      : readTransitions(options.transitions, "options.transitions", issues);
  const visibilityLagMs =
    options.visibilityLagMs === undefined
      ? 0
      : readMilliseconds(options.visibilityLagMs, "options.visibilityLagMs", issues);
  const rateLimit =
    options.rateLimit === undefined ? false : readRateLimit(options.rateLimit, "options.rateLimit", issues);
  const services: SeedService[] = [];
  if (options.services !== undefined) {
    if (Array.isArray(options.services)) {
      options.services.forEach((seed, index) => {
        const parsed = readSeedService(seed, `options.services[${index}]`, issues);
        if (parsed !== undefined) services.push(parsed);
      });
    } else {
      issues.add("options.services", `must be an array, got ${formatValue(options.services)}`);
    }
  }
  const warehouseRules =
    options.warehouseRules === undefined
      ? {}
      : readWarehouseRules(options.warehouseRules, "options.warehouseRules", issues);
  issues.throwIfAny();
  return {
    host: host ?? DEFAULT_HOST,
    port: port ?? 0,
    keyId: keyId ?? generateKeyId(),
    keySecret: keySecret ?? generateKeySecret(),
    transitions: { ...DEFAULT_TRANSITIONS, ...transitions },
    visibilityLagMs: visibilityLagMs ?? 0,
    rateLimit: rateLimit ?? false,
    services,
    warehouseRules: { ...DEFAULT_WAREHOUSE_RULES, ...warehouseRules },
    now: now ?? Date.now,
    random: random ?? Math.random,
  };
}
