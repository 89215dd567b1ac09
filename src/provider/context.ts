import { createHash } from "node:crypto";
import { ApiClient } from "../api/client";
import { systemClock, type Clock } from "../api/clock";
import { DEFAULT_RETRY_POLICY } from "../api/retry";
import { cancellableClock } from "./cancellation";
import {
  CONFIG_SETTINGS,
  readSetting,
  resolveConfig,
  stackSetting,
  timeScale,
  type ResolvedConfig,
  type SettingName,
} from "./config";
import type { ProgressLog } from "./converge";
import { DEFAULT_TUNING, scaleTuning, type ConvergeTuning } from "./tuning";
import { processPrior, type TransitionSamples } from "./transitions";

/**
 * What a provider method needs at run time, built from the stack config handed to `configure`
 * and the environment. Nothing here is captured at serialization time:
 * credentials never reach the serialized provider or the state.
 */
export interface ProviderContext {
  client: ApiClient;
  clock: Clock;
  log: ProgressLog;
  tuning: ConvergeTuning;
  /** The transitions this process watched (process-wide, shared by every context). */
  prior: TransitionSamples;
  /** How long a read may take in all: `READ_TIMEOUT_SECONDS`, scaled like every default wait of ours. */
  readTimeoutMs: number;
}

/** How long a read (refresh, or the GET of an endpoint's create) may take in all, retries included. */
export const READ_TIMEOUT_SECONDS = 120;

/** The deadline of a read started now under `context`. */
export function readDeadline(context: ProviderContext): number {
  return context.clock.now() + context.readTimeoutMs;
}

/** The clock time `seconds` from now, for a call's deadline. */
export function deadlineAfter(seconds: number): number {
  return systemClock.now() + seconds * 1000;
}

/** Progress goes to stdout, warnings to stderr: the Pulumi CLI shows both for dynamic providers. */
// Stryker disable all: log wording, out of the mutation scope (stryker.config.mjs)
export const consoleLog: ProgressLog = {
  info: (line) => console.log(`[dbcloud] ${line}`),
  warn: (line) => console.error(`[dbcloud] warning: ${line}`),
};
// Stryker restore all

/**
 * The client for a resolved configuration, with retry waits scaled by `DBCLOUD_TIME_SCALE`. The
 * providers keep one per configuration in the host process (`providerContext`); `getService`
 * builds one per call from the program's stack config. Neither is kept anywhere it could be
 * serialized.
 */
export function apiClientFor(config: ResolvedConfig, log: (line: string) => void): ApiClient {
  const scale = timeScale();
  return new ApiClient({
    apiUrl: config.apiUrl,
    keyId: config.keyId,
    keySecret: config.keySecret,
    rateLimit: config.rateLimit,
    clock: cancellableClock,
    retry: {
      baseDelayMs: DEFAULT_RETRY_POLICY.baseDelayMs * scale,
      maxDelayMs: DEFAULT_RETRY_POLICY.maxDelayMs * scale,
    },
    log,
  });
}

/**
 * Contexts built so far in this process, by a hash of the raw configuration: building a
 * client (URL checks, the secret's encoded forms, the Basic token) costs more than a loopback
 * request. The key holds a hash of the secret, never the secret; the client keeps it in
 * non-enumerable fields that neither JSON nor inspect shows.
 */
const contexts = new Map<string, ProviderContext>();

/** The settings a context depends on, in a fixed order; the time scale follows them. */
const SETTING_NAMES = Object.keys(CONFIG_SETTINGS) as SettingName[];

/** How many raw values a context depends on: the settings, then `DBCLOUD_TIME_SCALE`. */
const RAW_COUNT = SETTING_NAMES.length + 1;

/** The `i`-th raw value, as set now (`""` when unset). */
function rawSetting(i: number): string {
  return (
    (i < SETTING_NAMES.length
      ? readSetting(SETTING_NAMES[i], stackSetting, process.env)
      : process.env.DBCLOUD_TIME_SCALE) ?? ""
  );
}

/** The raw settings (and time scale) every context depends on, in a fixed order. */
function rawSettings(): string[] {
  return Array.from({ length: RAW_COUNT }, (_, i) => rawSetting(i));
}

/**
 * Whether the raw settings are still `raw`, read one at a time and compared in place: no array
 * is built on the common path (one stack per host, every call the same settings).
 */
function unchanged(raw: readonly string[]): boolean {
  for (let i = 0; i < RAW_COUNT; i++) if (rawSetting(i) !== raw[i]) return false;
  return true;
}

/** A hash of the raw settings (the secret among them, so only its hash is kept as a key). */
function contextKey(raw: readonly string[]): string {
  const hash = createHash("sha256");
  for (const value of raw) hash.update(`${value}\n`);
  return hash.digest("hex");
}

/**
 * The last raw settings seen and their context. A call whose settings equal the last ones (the
 * common case: one stack per host) compares strings instead of hashing them. Held in a closure
 * of this module, which the serialized providers never capture (they require it at run time),
 * beside the stack config map that already holds the same values.
 */
let last: { raw: readonly string[]; context: ProviderContext } | undefined;

export function providerContext(): ProviderContext {
  // Same raw settings, same context: resolving and checking them again would only cost time.
  // They are read again on every call, never trusted from an earlier one: the stack config
  // and the environment decide, whenever they change.
  if (last && unchanged(last.raw)) return last.context;
  const raw = rawSettings();
  const key = contextKey(raw);
  let context = contexts.get(key);
  if (!context) {
    context = buildContext(resolveConfig(stackSetting, process.env), timeScale());
    contexts.set(key, context);
  }
  last = { raw, context };
  return context;
}

function buildContext(config: ResolvedConfig, scale: number): ProviderContext {
  const log = consoleLog;
  const client = apiClientFor(config, (line) => log.info(line));
  const tuning = scaleTuning(DEFAULT_TUNING, scale);
  return {
    client,
    clock: cancellableClock,
    log,
    tuning,
    prior: processPrior(),
    readTimeoutMs: READ_TIMEOUT_SECONDS * 1000 * scale,
  };
}
