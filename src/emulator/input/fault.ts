// Validation of injected faults. A fault that could never fire, or two outcomes that contradict
// each other (drop and answer a status), is a mistake in the test that sets it: refuse it loudly.
import { formatValue, IssueList, isPlainObject } from "./errors";
import { readMilliseconds, reportUnknownKeys } from "./values";
import { checkFaultCombinations } from "./fault-rules";
import type { EchoForm, EchoPlace, Fault, FaultRoute, RateLimitHeaderForm } from "../types";

const FAULT_KEYS = new Set([
  "route",
  "method",
  "status",
  "retryAfterSeconds",
  "headers",
  "delayMs",
  "drop",
  "malformed",
  "ignoreCommand",
  "times",
  "probability",
  "message",
  "rateLimitHeaders",
  "stall",
  "trickleMs",
  "trickleBytes",
  "oversizeBytes",
  "noContent",
  "echoSecret",
  "echoForm",
  "flipBackAfterMs",
]);
const RATE_LIMIT_HEADER_FORMS: readonly RateLimitHeaderForm[] = [
  "both",
  "retry-after-seconds",
  "retry-after-date",
  "reset-delta",
  "reset-epoch-seconds",
  "reset-epoch-ms",
  "none",
];
const ECHO_PLACES: readonly EchoPlace[] = [
  "header",
  "requestId",
  "non-json-body",
  "long-body",
  "service-field",
];
const ECHO_FORMS: readonly EchoForm[] = [
  "raw",
  "authorization",
  "base64",
  "json-escaped",
  "url-encoded",
  "escapes",
];
/** Padding beyond this is a mistake in the test (the emulator streams it, but the client may not). */
export const MAX_OVERSIZE_BYTES = 1024 ** 3;
const FAULT_ROUTES: ReadonlySet<string> = new Set<FaultRoute>([
  "getService",
  "changeState",
  "deleteEndpoint",
  "any",
]);

function readTimes(value: unknown, issues: IssueList): number | undefined {
  // JSON has no Infinity: the control surface accepts the string "Infinity" for it.
  if (value === Infinity || value === "Infinity") return Infinity;
  if (typeof value === "number" && Number.isInteger(value) && value >= 1) return value;
  issues.add("fault.times", `must be an integer >= 1 or Infinity, got ${formatValue(value)}`);
  return undefined;
}

function readHeaders(value: unknown, issues: IssueList): Record<string, string> | undefined {
  if (!isPlainObject(value)) {
    issues.add("fault.headers", `must be an object of strings, got ${formatValue(value)}`);
    return undefined;
  }
  for (const [name, headerValue] of Object.entries(value)) {
    if (typeof headerValue !== "string") {
      issues.add(`fault.headers.${name}`, `must be a string, got ${formatValue(headerValue)}`);
    }
  }
  return { ...(value as Record<string, string>) };
}

function readOneOf<T extends string>(
  value: unknown,
  allowed: readonly T[],
  path: string,
  issues: IssueList,
): T | undefined {
  if (typeof value === "string" && (allowed as readonly string[]).includes(value)) return value as T;
  issues.add(
    path,
    `must be one of ${allowed.map((choice) => `"${choice}"`).join(", ")}, got ${formatValue(value)}`,
  );
  return undefined;
}

function readBoolean(value: unknown, path: string, issues: IssueList): boolean | undefined {
  if (typeof value === "boolean") return value;
  issues.add(path, `must be a boolean, got ${formatValue(value)}`);
  return undefined;
}

function readInteger(value: unknown, min: number, max: number, path: string, issues: IssueList) {
  if (typeof value === "number" && Number.isInteger(value) && value >= min && value <= max) return value;
  issues.add(path, `must be an integer from ${min} to ${max}, got ${formatValue(value)}`);
  return undefined;
}

/** The fields added for the fault suite: stalls, slow and huge bodies, wait headers, echoes, flips. */
function readShapingFields(input: Record<string, unknown>, fault: Fault, issues: IssueList): void {
  if (input.message !== undefined) {
    if (typeof input.message === "string" && input.message.length > 0) fault.message = input.message;
    else issues.add("fault.message", `must be a non-empty string, got ${formatValue(input.message)}`);
  }
  if (input.rateLimitHeaders !== undefined) {
    const path = "fault.rateLimitHeaders";
    fault.rateLimitHeaders = readOneOf(input.rateLimitHeaders, RATE_LIMIT_HEADER_FORMS, path, issues);
  }
  if (input.stall !== undefined) {
    const stall = input.stall;
    if (typeof stall === "boolean" || stall === "before" || stall === "after") fault.stall = stall;
    else issues.add("fault.stall", `must be true, false, "before" or "after", got ${formatValue(stall)}`);
  }
  if (input.trickleMs !== undefined) {
    fault.trickleMs = readMilliseconds(input.trickleMs, "fault.trickleMs", issues);
  }
  if (input.trickleBytes !== undefined) {
    fault.trickleBytes = readInteger(input.trickleBytes, 1, 1024 * 1024, "fault.trickleBytes", issues);
  }
  if (input.oversizeBytes !== undefined) {
    const path = "fault.oversizeBytes";
    fault.oversizeBytes = readInteger(input.oversizeBytes, 1024, MAX_OVERSIZE_BYTES, path, issues);
  }
  if (input.noContent !== undefined)
    fault.noContent = readBoolean(input.noContent, "fault.noContent", issues);
  if (input.echoSecret !== undefined) {
    fault.echoSecret = readOneOf(input.echoSecret, ECHO_PLACES, "fault.echoSecret", issues);
  }
  if (input.echoForm !== undefined) {
    fault.echoForm = readOneOf(input.echoForm, ECHO_FORMS, "fault.echoForm", issues);
  }
  if (input.flipBackAfterMs !== undefined) {
    fault.flipBackAfterMs = readMilliseconds(input.flipBackAfterMs, "fault.flipBackAfterMs", issues);
  }
}

/** Which requests the fault applies to: a route and a method. */
function readTargetFields(input: Record<string, unknown>, fault: Fault, issues: IssueList): void {
  if (input.route !== undefined) {
    if (typeof input.route === "string" && FAULT_ROUTES.has(input.route))
      fault.route = input.route as FaultRoute;
    else
      issues.add(
        "fault.route",
        `must be one of ${[...FAULT_ROUTES].join(", ")}, got ${formatValue(input.route)}`,
      );
  }
  if (input.method !== undefined) {
    if (typeof input.method === "string" && input.method.length > 0)
      fault.method = input.method.toUpperCase();
    else issues.add("fault.method", `must be an HTTP method, got ${formatValue(input.method)}`);
  }
}

/** What the fault does to a request it takes: an error status, headers, a delay, a drop, a broken body. */
function readOutcomeFields(input: Record<string, unknown>, fault: Fault, issues: IssueList): void {
  if (input.status !== undefined) {
    const status = input.status;
    if (typeof status === "number" && Number.isInteger(status) && status >= 400 && status <= 599)
      fault.status = status;
    else issues.add("fault.status", `must be an integer from 400 to 599, got ${formatValue(status)}`);
  }
  if (input.retryAfterSeconds !== undefined) {
    const seconds = input.retryAfterSeconds;
    if (typeof seconds === "number" && Number.isFinite(seconds) && seconds >= 0)
      fault.retryAfterSeconds = seconds;
    else issues.add("fault.retryAfterSeconds", `must be a number >= 0, got ${formatValue(seconds)}`);
  }
  if (input.headers !== undefined) fault.headers = readHeaders(input.headers, issues);
  if (input.delayMs !== undefined) fault.delayMs = readMilliseconds(input.delayMs, "fault.delayMs", issues);
  if (input.drop !== undefined) fault.drop = readOneOf(input.drop, ["before", "after"], "fault.drop", issues);
  if (input.malformed !== undefined) {
    fault.malformed = readOneOf(
      input.malformed,
      ["not-json", "wrong-shape", "deep"],
      "fault.malformed",
      issues,
    );
  }
  if (input.ignoreCommand !== undefined) {
    if (typeof input.ignoreCommand === "boolean") fault.ignoreCommand = input.ignoreCommand;
    else issues.add("fault.ignoreCommand", `must be a boolean, got ${formatValue(input.ignoreCommand)}`);
  }
}

/** How often the fault fires: a number of times, and a chance each time. */
function readFiringFields(input: Record<string, unknown>, fault: Fault, issues: IssueList): void {
  if (input.times !== undefined) fault.times = readTimes(input.times, issues);
  if (input.probability !== undefined) {
    const probability = input.probability;
    if (typeof probability === "number" && probability >= 0 && probability <= 1)
      fault.probability = probability;
    else issues.add("fault.probability", `must be a number from 0 to 1, got ${formatValue(probability)}`);
  }
}

/** Validates a fault; throws EmulatorInputError listing every problem. */
export function parseFault(value: unknown): Fault {
  const issues = new IssueList();
  if (!isPlainObject(value)) {
    issues.add("fault", `must be an object, got ${formatValue(value)}`);
    issues.throwIfAny();
  }
  const input = value as Record<string, unknown>;
  reportUnknownKeys(input, FAULT_KEYS, "fault", issues);
  const fault: Fault = {};
  // Problems are listed in the order these read them.
  readTargetFields(input, fault, issues);
  readOutcomeFields(input, fault, issues);
  readFiringFields(input, fault, issues);
  readShapingFields(input, fault, issues);
  checkFaultCombinations(input, fault, issues);
  issues.throwIfAny();
  return fault;
}
