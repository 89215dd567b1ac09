// Which fault fields go together. A fault whose parts could never all happen (a stalled answer
// with a trickled body, an echo in a Service that an error answer does not carry) is a mistake
// in the test that sets it: every such clash is listed, by name.
import type { IssueList } from "./errors";
import type { Fault } from "../types";

/** The outcomes that decide what the answer is; the other fields shape or add to it. */
const EXCLUSIVE_OUTCOMES = ["status", "drop", "malformed", "ignoreCommand", "stall", "noContent"] as const;
/** Fields that do something on their own, with no outcome. */
const MODIFIERS = [
  "delayMs",
  "headers",
  "trickleMs",
  "oversizeBytes",
  "echoSecret",
  "flipBackAfterMs",
] as const;

function present(input: Record<string, unknown>, key: string): boolean {
  return input[key] !== undefined && input[key] !== false;
}

function routeIs(fault: Fault, allowed: string): boolean {
  return fault.route === undefined || fault.route === "any" || fault.route === allowed;
}

export function checkFaultCombinations(
  input: Record<string, unknown>,
  fault: Fault,
  issues: IssueList,
): void {
  const outcomes = EXCLUSIVE_OUTCOMES.filter((key) => present(input, key));
  if (outcomes.length > 1) issues.add("fault", `combines ${outcomes.join(" and ")}; choose one`);
  if (outcomes.length === 0 && !MODIFIERS.some((key) => present(input, key))) {
    issues.add(
      "fault",
      "does nothing: set status, delayMs, headers, drop, malformed, ignoreCommand, stall, noContent, " +
        "trickleMs, oversizeBytes, echoSecret or flipBackAfterMs",
    );
  }
  if (fault.ignoreCommand && !routeIs(fault, "changeState")) {
    issues.add("fault.ignoreCommand", `only applies to changeState, not to route "${fault.route}"`);
  }
  if (fault.noContent && !routeIs(fault, "deleteEndpoint")) {
    issues.add("fault.noContent", `only applies to deleteEndpoint, not to route "${fault.route}"`);
  }
  if (fault.noContent && fault.method !== undefined && fault.method !== "DELETE") {
    issues.add("fault.noContent", `only applies to DELETE, not to ${fault.method}`);
  }
  if (fault.flipBackAfterMs !== undefined) {
    if (!routeIs(fault, "changeState")) {
      issues.add("fault.flipBackAfterMs", `only applies to changeState, not to route "${fault.route}"`);
    }
    // Nothing is applied, so there is nothing to flip back.
    const unapplied = fault.status !== undefined || fault.ignoreCommand || fault.drop === "before";
    if (unapplied || fault.stall === true || fault.stall === "before") {
      issues.add(
        "fault.flipBackAfterMs",
        "needs a command that is applied (not status, ignoreCommand or before)",
      );
    }
  }
  if (fault.message !== undefined && fault.status === undefined) {
    issues.add("fault.message", "needs a status: it is the error text of that answer");
  }
  if (fault.rateLimitHeaders !== undefined && fault.status !== 429) {
    issues.add("fault.rateLimitHeaders", "only applies to status 429");
  }
  if (fault.trickleBytes !== undefined && fault.trickleMs === undefined) {
    issues.add("fault.trickleBytes", "needs trickleMs");
  }
  if (fault.echoForm !== undefined && fault.echoSecret === undefined) {
    issues.add("fault.echoForm", "needs echoSecret");
  }
  checkBodyShaping(fault, issues);
}

/** Trickling, padding and echoing all need an answer with a body of the right kind. */
function checkBodyShaping(fault: Fault, issues: IssueList): void {
  const noAnswer = fault.drop !== undefined || (fault.stall !== undefined && fault.stall !== false);
  const noBody = noAnswer || fault.noContent === true;
  if (fault.trickleMs !== undefined && noBody) issues.add("fault.trickleMs", "needs an answer with a body");
  if (fault.oversizeBytes !== undefined) {
    if (noBody) issues.add("fault.oversizeBytes", "needs an answer with a body");
    if (fault.malformed === "not-json")
      issues.add("fault.oversizeBytes", 'pads JSON: not with malformed "not-json"');
    if (fault.echoSecret === "non-json-body" || fault.echoSecret === "long-body") {
      issues.add("fault.oversizeBytes", `cannot pad the body echoSecret "${fault.echoSecret}" writes`);
    }
  }
  const echo = fault.echoSecret;
  if (echo === undefined) return;
  if (noAnswer) issues.add("fault.echoSecret", "needs an answer to echo in");
  if (echo === "service-field") {
    if (fault.status !== undefined || fault.malformed !== undefined || fault.noContent) {
      issues.add("fault.echoSecret", '"service-field" needs a 200 answer that carries a Service');
    }
    if (fault.route === "deleteEndpoint") {
      issues.add("fault.echoSecret", '"service-field" needs a route that answers with a Service');
    }
  }
  if (
    (echo === "non-json-body" || echo === "long-body") &&
    (fault.malformed !== undefined || fault.noContent)
  ) {
    issues.add("fault.echoSecret", `"${echo}" writes the body itself: not with malformed or noContent`);
  }
}
