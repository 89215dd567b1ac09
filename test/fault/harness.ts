// The fault suite's world and its invariants: a fresh emulator per run, the real provider
// functions configured against it (as the engine's `configure` would), and the checks every run
// ends with. Each check returns violations as text, so a failing property prints what broke.
import { randomBytes, randomUUID } from "node:crypto";
import { MAX_BODY_BYTES } from "../../src/api/transport";
import { decide, type DesiredState } from "../../src/provider/stateTable";
import { startEmulator, type Emulator, type EmulatorOptions, type RequestLogEntry } from "../../src/emulator";
import { emulatorAuthorization } from "../helpers/emulatorHttp";
import { leakForms, unescaped } from "../helpers/leakForms";
import { configureProvider, providerConfig } from "../helpers/providerConfig";
import { warehouseWaitProblems } from "./warehouses";

/** `FUZZ_SEED=random` or a number; `FUZZ_RUNS` scales every property's number of runs. */
export const FUZZ_SEED =
  process.env.FUZZ_SEED === "random"
    ? Math.floor(Math.random() * 2 ** 31)
    : Number(process.env.FUZZ_SEED ?? 424242);
const RUN_FACTOR = process.env.FUZZ_RUNS ? Number(process.env.FUZZ_RUNS) / 100 : 1;
/** Runs of a property: its modest default in `npm test`, scaled by FUZZ_RUNS (100 = the default). */
export function runs(defaultRuns: number): number {
  return Math.max(1, Math.round(defaultRuns * RUN_FACTOR));
}

/** Documented slack on top of a deadline: scheduling, one last poll, closing a connection. */
export const WALL_SLACK_MS = 2_000;
/** Commands that may reach the state machine in one converge (README: "at most 3 commands"). */
export const MAX_COMMANDS = 3;
/** Attempts per request the client makes for errors other than 429 (README: 8 at most). */
export const MAX_ATTEMPTS = 8;
/** The provider's waits run at this scale: a 1 s first poll becomes 20 ms. */
export const TIME_SCALE = 0.02;
/** Longest error message the suite accepts: kept error text is truncated, so memory stays bounded. */
export const MAX_MESSAGE_CHARS = 4096;

/** Counts for the one summary line at the end of `npm test`. */
export const totals = { runs: 0, faults: 0, retries: 0, lost: 0, leaks: 0 };
(globalThis as Record<string, unknown>).__faultSuiteTotals = totals;

/**
 * A secret with every character that an encoding changes, so the JSON-escaped and URL-encoded
 * forms differ from the raw one.
 */
export function hostileSecret(): string {
  return `q"S\\7/+=&% ${randomBytes(18).toString("base64url")}`;
}

export interface World {
  emulator: Emulator;
  organizationId: string;
  /** Every form of the secret and its Basic token that must never be seen. */
  secretForms: string[];
  /** 12-character windows of the raw secret: a truncated copy is still a leak. */
  secretWindows: string[];
  close(): Promise<void>;
}

export async function startWorld(
  options: EmulatorOptions & { clientRateLimit?: string } = {},
): Promise<World> {
  const organizationId = randomUUID();
  const emulator = await startEmulator({
    keySecret: hostileSecret(),
    transitions: { starting: 60, stopping: 60, awaking: 40, provisioning: 60 },
    ...options,
  });
  process.env.DBCLOUD_TIME_SCALE = String(TIME_SCALE);
  await configureProvider(
    providerConfig(emulator, { organizationId, rateLimit: options.clientRateLimit ?? "off" }),
  );
  const secret = emulator.keySecret;
  const authorization = emulatorAuthorization(emulator);
  const token = authorization.slice("Basic ".length);
  const forms = new Set(leakForms(secret, token));
  const windows: string[] = [];
  for (let at = 0; at + 12 <= secret.length; at++) windows.push(secret.slice(at, at + 12));
  return {
    emulator,
    organizationId,
    secretForms: [...forms],
    secretWindows: windows,
    close: () => emulator.close(),
  };
}

/** Every string reachable from a value: own properties (message, stack, cause included), arrays, maps. */
export function reachableStrings(
  value: unknown,
  out: string[] = [],
  seen = new Set<unknown>(),
  depth = 0,
): string[] {
  if (typeof value === "string") {
    out.push(value);
    return out;
  }
  if (value === null || typeof value !== "object" || seen.has(value) || depth > 8) return out;
  if (ArrayBuffer.isView(value)) return out;
  seen.add(value);
  const keys = value instanceof Error ? Object.getOwnPropertyNames(value) : Object.keys(value);
  if (value instanceof Error && !keys.includes("cause") && "cause" in value) keys.push("cause");
  for (const key of keys) {
    const child = (value as Record<string, unknown>)[key];
    if (typeof child !== "function") reachableStrings(child, out, seen, depth + 1);
  }
  if (value instanceof Map) for (const [k, v] of value) reachableStrings([k, v], out, seen, depth + 1);
  return out;
}

/** Where a form of the secret shows, as `where: form` lines. */
export function findLeaks(world: World, where: string, value: unknown): string[] {
  const found: string[] = [];
  for (const text of reachableStrings(value).flatMap((text) => [text, unescaped(text)])) {
    const form =
      world.secretForms.find((f) => text.includes(f)) ?? world.secretWindows.find((w) => text.includes(w));
    if (form !== undefined)
      found.push(
        `${where} holds the secret (${JSON.stringify(form)}) in ${JSON.stringify(text.slice(0, 160))}`,
      );
  }
  return found;
}

export interface ActionResult<T> {
  value?: T;
  error?: unknown;
  elapsedMs: number;
  /** True when the watchdog had to end the action (the emulator was closed under it). */
  cutOff: boolean;
  stdout: string[];
  stderr: string[];
}

/**
 * Runs one provider call with console output captured, bounded by a watchdog: past `boundMs` the
 * emulator is closed (which ends stalls and trickles) and the action is marked cut off.
 */
export async function runAction<T>(
  world: World,
  boundMs: number,
  action: () => Promise<T>,
): Promise<ActionResult<T>> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const original = { log: console.log, error: console.error, warn: console.warn };
  console.log = (...args: unknown[]) => stdout.push(args.map(String).join(" "));
  console.error = (...args: unknown[]) => stderr.push(args.map(String).join(" "));
  console.warn = console.error;
  const startedAt = performance.now();
  let cutOff = false;
  const watchdog = setTimeout(() => {
    cutOff = true;
    void world.emulator.close();
  }, boundMs + 500);
  try {
    const value = await action();
    return { value, elapsedMs: performance.now() - startedAt, cutOff, stdout, stderr };
  } catch (error) {
    return { error, elapsedMs: performance.now() - startedAt, cutOff, stdout, stderr };
  } finally {
    clearTimeout(watchdog);
    Object.assign(console, original);
  }
}

/** The log entries of one service from sequence number `afterSeq` on. */
export function entriesSince(world: World, serviceId: string, afterSeq: number): RequestLogEntry[] {
  return world.emulator.requests.filter((entry) => entry.seq > afterSeq && entry.serviceId === serviceId);
}

export function lastSeq(world: World): number {
  const all = world.emulator.requests;
  return all.length ? all[all.length - 1].seq : 0;
}

const RETRYABLE = new Set<unknown>([408, 429, 500, 502, 503, 504, "dropped", "stalled"]);

/** Requests that repeat the one before them (same method and path) after a retryable failure. */
export function countRetries(entries: RequestLogEntry[]): number {
  let retries = 0;
  for (let i = 1; i < entries.length; i++) {
    const before = entries[i - 1];
    if (
      RETRYABLE.has(before.status) &&
      before.method === entries[i].method &&
      before.path === entries[i].path
    )
      retries++;
  }
  return retries;
}

/**
 * An answer the client could read: not trickled (that may fail to be read at all), and not padded
 * past the client's body cap (padded below it, the answer is valid JSON read whole).
 */
function readable(entry: RequestLogEntry): boolean {
  if (entry.stateShown === undefined || /trickle/.test(entry.fault ?? "")) return false;
  const padded = /oversize (\d+)B/.exec(entry.fault ?? "");
  return !padded || Number(padded[1]) <= MAX_BODY_BYTES;
}

/** The state the provider last saw in this action (GET or PATCH answer), if any. */
export function lastShownState(entries: RequestLogEntry[]): string | undefined {
  const shown = entries.filter(readable);
  return shown.length ? shown[shown.length - 1].stateShown : undefined;
}

/** PATCHes that reached the state machine (not refused by a fault, the rate limit or a warehouse). */
export function commandsReached(entries: RequestLogEntry[]): RequestLogEntry[] {
  return entries.filter((e) => e.method === "PATCH" && e.stateBefore !== undefined && !e.warehouseRefusal);
}

/** PATCHes that changed the service: the world was changed by this action. */
export function commandsApplied(entries: RequestLogEntry[]): RequestLogEntry[] {
  return commandsReached(entries).filter((entry) => entry.stateAfter !== entry.stateBefore);
}

/** Every PATCH must be what the state table says for the state the provider last saw before it. */
export function forbiddenCommands(entries: RequestLogEntry[], desired: DesiredState): string[] {
  const problems: string[] = [];
  entries.forEach((entry, index) => {
    if (entry.method !== "PATCH") return;
    const seen = lastShownState(entries.slice(0, index));
    const allowed = seen === undefined ? undefined : decide(seen, desired).action;
    if (seen === undefined || allowed !== entry.command) {
      problems.push(
        `PATCH ${entry.command} (seq ${entry.seq}) to reach ${desired} after the provider saw ${seen ?? "nothing"} ` +
          `(the state table says ${allowed ?? "nothing can be sent yet"})`,
      );
    }
  });
  return problems;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The error names its cause and, when the server answered, the request id: judged from the
 * last request of the action.
 */
export function unclearError(error: unknown, entries: RequestLogEntry[], world: World): string[] {
  const message = messageOf(error);
  const problems: string[] = [];
  if (!(error instanceof Error) || message.length < 10) problems.push(`not a clear error: ${String(error)}`);
  if (message.length > MAX_MESSAGE_CHARS)
    problems.push(`message of ${message.length} characters (at most ${MAX_MESSAGE_CHARS})`);
  const last = entries[entries.length - 1];
  const waited = warehouseWaitProblems(message, entries, world);
  if (last === undefined || waited !== undefined) return [...problems, ...(waited ?? [])];
  const secretId = last.requestId !== undefined && findLeaks(world, "", last.requestId).length > 0;
  if (typeof last.status === "number" && last.status >= 400 && last.status !== 409) {
    if (!message.includes(String(last.status)))
      problems.push(`message does not name the status ${last.status}: ${message.slice(0, 300)}`);
    if (last.requestId && !secretId && !message.includes(last.requestId))
      problems.push(`message does not name requestId ${last.requestId}: ${message.slice(0, 300)}`);
  } else if (last.status === "dropped") {
    if (!/connect|socket|closed|reset|terminated|other side|timed out/i.test(message))
      problems.push(`a dropped connection is not named: ${message.slice(0, 300)}`);
  } else if (last.status === "stalled" || /trickle/.test(last.fault ?? "")) {
    if (!/time|deadline/i.test(message)) problems.push(`a timeout is not named: ${message.slice(0, 300)}`);
  } else if (
    /malformed|oversize|echo/.test(last.fault ?? "") &&
    !/cannot be made|Timed out after|went back/.test(message)
  ) {
    // The answer itself is what failed (the converger's own verdicts are judged elsewhere).
    if (last.requestId && !secretId && !message.includes(last.requestId))
      problems.push(
        `message does not name requestId ${last.requestId} of the bad answer: ${message.slice(0, 300)}`,
      );
  }
  return problems;
}

/** Heap use after a full collection, when the runtime lets us ask for one. */
export function settledHeap(): number {
  const gc = collector();
  if (gc) {
    gc();
    gc();
  }
  return process.memoryUsage().heapUsed;
}

let cachedGc: (() => void) | null | undefined;
function collector(): (() => void) | null {
  if (cachedGc !== undefined) return cachedGc;
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing) return (cachedGc = existing);
  try {
    // --expose-gc after start-up: the flag makes new contexts carry a gc function.
    require("node:v8").setFlagsFromString("--expose-gc");
    cachedGc = require("node:vm").runInNewContext("gc") as () => void;
  } catch {
    cachedGc = null;
  }
  return cachedGc;
}
export const heapIsMeasured = (): boolean => collector() !== null;
