// One API request, in the order the real service checks things: auth, rate limit, then the
// operation. Injected faults sit between the rate limit and the operation, and every answer,
// error or not, carries a fresh request id in the body and in X-Request-Id.
import { randomUUID } from "node:crypto";
import { type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse, STATUS_CODES } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { changeState, deleteEndpoint, getService, type OperationOutcome } from "./api-operations";
import { matchApiPath, type PathMatch } from "./api-routes";
import { authenticate, type KeyPair } from "./auth";
import { describeFault, type FaultRegistry } from "./fault-registry";
import { BodyTooLargeError, dropConnection, readBody, sendJson, sendText } from "./io";
import type { FixedWindowRateLimiter } from "./rate-limiter";
import type { RequestLog } from "./request-log";
import type { ServiceStore } from "../model/service-store";
import type { Fault, RequestLogEntry } from "../types";

export interface ApiContext {
  keys: KeyPair;
  store: ServiceStore;
  rateLimiter: FixedWindowRateLimiter;
  faults: FaultRegistry;
  log: RequestLog;
  now(): number;
  /** Aborted when the emulator closes, to end injected delays. */
  closing: AbortSignal;
}

/** Bodies of the malformed-answer faults: one that does not parse, one that parses but does not fit. */
const MALFORMED_BODIES: Record<NonNullable<Fault["malformed"]>, () => string> = {
  "not-json": () => '{"status":200,"result":',
  "wrong-shape": () => JSON.stringify({ requestId: randomUUID(), result: { id: 7, state: 42 } }),
};

export async function handleApiRequest(
  context: ApiContext,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
): Promise<void> {
  const method = (req.method ?? "GET").toUpperCase();
  const entry: RequestLogEntry = {
    seq: context.log.nextSeq(),
    at: context.now(),
    method,
    path: pathname,
    route: "unknown",
    status: 0,
    authorized: false,
  };
  const match = matchApiPath(pathname);
  if (match.kind === "operation") {
    entry.organizationId = match.params.organizationId;
    entry.serviceId = match.params.serviceId;
    if (match.params.endpointId !== undefined) entry.endpointId = match.params.endpointId;
    if (match.method === method) entry.route = match.route;
  }
  let extraHeaders: OutgoingHttpHeaders = {};
  const answer = (
    status: number,
    fields: Record<string, unknown>,
    headers: OutgoingHttpHeaders = {},
  ): void => {
    const requestId = randomUUID();
    const envelope = status === 200 ? { status, requestId, ...fields } : { status, ...fields, requestId };
    sendJson(res, status, envelope, { ...extraHeaders, ...headers, "X-Request-Id": requestId });
    entry.status = status;
    context.log.record(entry);
  };

  let body: Buffer;
  try {
    body = await readBody(req);
  } catch (error) {
    if (!(error instanceof BodyTooLargeError)) throw error;
    // The rest of the body is still on the wire: this connection cannot be reused.
    return answer(413, { error: `Payload Too Large: ${error.message}` }, { Connection: "close" });
  }

  const keyId = authenticate(req.headers.authorization, context.keys);
  if (keyId === undefined) {
    return answer(
      401,
      { error: "Unauthorized: invalid API key" },
      { "WWW-Authenticate": 'Basic realm="dbcloud-emulator"' },
    );
  }
  entry.authorized = true;

  const rate = context.rateLimiter.take(keyId);
  if (!rate.allowed) {
    entry.rateLimited = true;
    const seconds = String(rate.resetSeconds);
    return answer(
      429,
      { error: "TOO_MANY_REQUESTS" },
      { "Retry-After": seconds, "X-RateLimit-Reset": seconds },
    );
  }

  const fault = context.faults.take(entry.route, method);
  if (fault !== undefined) {
    entry.fault = describeFault(fault);
    extraHeaders = { ...fault.headers };
    if (fault.delayMs !== undefined && fault.delayMs > 0) {
      try {
        await sleep(fault.delayMs, undefined, { signal: context.closing });
      } catch {
        return drop(context, res, entry);
      }
    }
    if (fault.drop === "before") return drop(context, res, entry);
    if (fault.status !== undefined) {
      const seconds = String(fault.retryAfterSeconds ?? 1);
      const headers = fault.status === 429 ? { "Retry-After": seconds, "X-RateLimit-Reset": seconds } : {};
      const error = fault.status === 429 ? "TOO_MANY_REQUESTS" : (STATUS_CODES[fault.status] ?? "Error");
      return answer(fault.status, { error }, headers);
    }
  }

  const { outcome, headers } = runOperation(context, match, method, pathname, body, fault);
  extraHeaders = { ...extraHeaders, ...headers };
  if (outcome.command !== undefined) entry.command = outcome.command;
  if (outcome.stateBefore !== undefined) entry.stateBefore = outcome.stateBefore;
  if (outcome.stateAfter !== undefined) entry.stateAfter = outcome.stateAfter;

  // The operation was applied; the answer is lost or mangled on the way back.
  if (fault?.drop === "after") return drop(context, res, entry);
  if (fault?.malformed !== undefined) {
    sendText(res, 200, MALFORMED_BODIES[fault.malformed](), {
      ...extraHeaders,
      "X-Request-Id": randomUUID(),
    });
    entry.status = 200;
    context.log.record(entry);
    return;
  }
  if (outcome.error !== undefined) return answer(outcome.status, { error: outcome.error });
  return answer(outcome.status, outcome.result === undefined ? {} : { result: outcome.result });
}

/** The operation the path and method name, or the 400/404/405 answer when they name none. */
function runOperation(
  context: ApiContext,
  match: PathMatch,
  method: string,
  pathname: string,
  body: Buffer,
  fault: Fault | undefined,
): { outcome: OperationOutcome; headers?: OutgoingHttpHeaders } {
  if (match.kind === "bad-encoding") {
    return {
      outcome: { status: 400, error: `Invalid path: malformed percent-encoding in "${match.segment}"` },
    };
  }
  if (match.kind === "no-route") {
    return { outcome: { status: 404, error: `Not found: no route for ${method} ${pathname}` } };
  }
  if (match.method !== method) {
    const error = `Method Not Allowed: ${method} is not allowed here; use ${match.method}`;
    return { outcome: { status: 405, error }, headers: { Allow: match.method } };
  }
  if (match.route === "getService") return { outcome: getService(context.store, match.params) };
  if (match.route === "changeState") {
    const ignoreCommand = fault?.ignoreCommand === true;
    return { outcome: changeState(context.store, match.params, body, { ignoreCommand }) };
  }
  return { outcome: deleteEndpoint(context.store, match.params) };
}

function drop(context: ApiContext, res: ServerResponse, entry: RequestLogEntry): void {
  dropConnection(res);
  entry.status = "dropped";
  context.log.record(entry);
}
