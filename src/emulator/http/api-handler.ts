// One API request, in the order the real service checks things: auth, rate limit, then the
// operation. Injected faults sit between the rate limit and the operation, and every answer,
// error or not, carries a fresh request id in the body and in X-Request-Id.
import { type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse, STATUS_CODES } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { type Answer, finish, type Ending, type Exchange, respond } from "./api-ending";
import {
  changeState,
  deleteEndpoint,
  getService,
  parseCommandBody,
  type OperationOutcome,
} from "./api-operations";
import { matchApiPath, type PathMatch } from "./api-routes";
import { authenticate, type KeyPair } from "./auth";
import { describeFault, type FaultRegistry } from "./fault-registry";
import { MALFORMED_BODIES, rateLimitWaitHeaders } from "./fault-answers";
import { BodyTooLargeError, readBody } from "./io";
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

export async function handleApiRequest(
  context: ApiContext,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
): Promise<void> {
  const method = (req.method ?? "GET").toUpperCase();
  const match = matchApiPath(pathname);
  const exchange: Exchange = { context, req, res, entry: newLogEntry(context, method, pathname, match) };
  const { entry } = exchange;

  let body: Buffer;
  try {
    body = await readBody(req);
  } catch (error) {
    if (!(error instanceof BodyTooLargeError)) throw error;
    // The rest of the body is still on the wire: this connection cannot be reused.
    const tooLarge = errorAnswer(413, `Payload Too Large: ${error.message}`, { Connection: "close" });
    return respond(exchange, undefined, tooLarge);
  }

  // The command is logged even when the request is refused before it reaches the state machine.
  if (entry.route === "changeState") {
    const parsed = parseCommandBody(body);
    if (parsed.command !== undefined) entry.command = parsed.command;
  }

  // A 401 or a 429 of the limit comes before any fault is taken, so no fault shapes it.
  const refusal = refuseAccess(exchange);
  if (refusal !== undefined) return respond(exchange, undefined, refusal);

  const fault = context.faults.take(entry.route, method);
  if (fault !== undefined) {
    const early = await answerBeforeOperation(exchange, fault);
    if (early !== undefined) return finish(exchange, fault, early);
  }

  const { outcome, headers } = runOperation(context, match, method, pathname, body, fault);
  if (outcome.command !== undefined) entry.command = outcome.command;
  if (outcome.stateBefore !== undefined) entry.stateBefore = outcome.stateBefore;
  if (outcome.stateAfter !== undefined) entry.stateAfter = outcome.stateAfter;
  if (outcome.warehouseRefusal !== undefined) entry.warehouseRefusal = outcome.warehouseRefusal;
  return finish(exchange, fault, answerAfterOperation(fault, outcome, { ...fault?.headers, ...headers }));
}

/** The log entry as far as the path tells it; later steps fill in the rest. */
function newLogEntry(
  context: ApiContext,
  method: string,
  pathname: string,
  match: PathMatch,
): RequestLogEntry {
  const entry: RequestLogEntry = {
    seq: context.log.nextSeq(),
    at: context.now(),
    method,
    path: pathname,
    route: "unknown",
    status: 0,
    authorized: false,
  };
  if (match.kind === "operation") {
    entry.organizationId = match.params.organizationId;
    entry.serviceId = match.params.serviceId;
    if (match.params.endpointId !== undefined) entry.endpointId = match.params.endpointId;
    // A known path with the wrong method is logged as unknown: it names no operation.
    if (match.method === method) entry.route = match.route;
  }
  return entry;
}

/** The 401 of a bad key or the 429 of the rate limit, checked in that order; none when both pass. */
function refuseAccess({ context, req, entry }: Exchange): Answer | undefined {
  const keyId = authenticate(req.headers.authorization, context.keys);
  if (keyId === undefined) {
    const challenge = { "WWW-Authenticate": 'Basic realm="dbcloud-emulator"' };
    return errorAnswer(401, "Unauthorized: invalid API key", challenge);
  }
  entry.authorized = true;
  const rate = context.rateLimiter.take(keyId);
  if (rate.allowed) return undefined;
  entry.rateLimited = true;
  const seconds = String(rate.resetSeconds);
  return errorAnswer(429, "TOO_MANY_REQUESTS", { "Retry-After": seconds, "X-RateLimit-Reset": seconds });
}

/**
 * What a fault does before the operation runs: its delay, then a drop, a stall or an error status
 * in place of the operation. None when the fault lets the operation run.
 */
async function answerBeforeOperation(exchange: Exchange, fault: Fault): Promise<Ending | undefined> {
  const { context, entry } = exchange;
  entry.fault = describeFault(fault);
  if (fault.delayMs !== undefined && fault.delayMs > 0) {
    try {
      await sleep(fault.delayMs, undefined, { signal: context.closing });
    } catch {
      // The emulator is closing: the answer is never written.
      return "drop";
    }
  }
  if (fault.drop === "before") return "drop";
  if (fault.stall === true || fault.stall === "before") return "stall";
  if (fault.status === undefined) return undefined;
  const seconds = fault.retryAfterSeconds ?? 1;
  const waitHeaders =
    fault.status === 429
      ? rateLimitWaitHeaders(fault.rateLimitHeaders ?? "both", seconds, context.now())
      : {};
  const standard = fault.status === 429 ? "TOO_MANY_REQUESTS" : (STATUS_CODES[fault.status] ?? "Error");
  return errorAnswer(fault.status, fault.message ?? standard, { ...fault.headers, ...waitHeaders });
}

/**
 * The answer to an applied operation: its own, unless the fault loses or mangles it on the way
 * back. `headers` are the fault's and the operation's, sent with whatever answer goes.
 */
function answerAfterOperation(
  fault: Fault | undefined,
  outcome: OperationOutcome,
  headers: OutgoingHttpHeaders,
): Ending {
  if (fault?.drop === "after") return "drop";
  if (fault?.stall === "after") return "stall";
  if (fault?.malformed !== undefined)
    return { status: 200, text: MALFORMED_BODIES[fault.malformed], headers };
  if (fault?.noContent && outcome.status === 200) return { status: 204, text: () => "", headers };
  if (outcome.error !== undefined) return errorAnswer(outcome.status, outcome.error, headers);
  const fields = outcome.result === undefined ? {} : { result: outcome.result };
  return { status: outcome.status, fields, headers };
}

function errorAnswer(status: number, error: string, headers: OutgoingHttpHeaders): Answer {
  return { status, fields: { error }, headers };
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
    const options = { ignoreCommand: fault?.ignoreCommand === true, flipBackAfterMs: fault?.flipBackAfterMs };
    return { outcome: changeState(context.store, match.params, body, options) };
  }
  return { outcome: deleteEndpoint(context.store, match.params) };
}
