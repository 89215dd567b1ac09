// One API request, in the order the real service checks things: auth, rate limit, then the
// operation. Injected faults sit between the rate limit and the operation, and every answer,
// error or not, carries a fresh request id in the body and in X-Request-Id.
import { randomUUID } from "node:crypto";
import { type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse, STATUS_CODES } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
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
import { echoValue, longEchoMessage, rateLimitWaitHeaders, shortEchoBody } from "./fault-answers";
import { BodyTooLargeError, dropConnection, readBody } from "./io";
import { sendShaped } from "./shaped-body";
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
const MALFORMED_BODIES: Record<NonNullable<Fault["malformed"]>, (requestId: string) => string> = {
  "not-json": () => '{"status":200,"result":',
  "wrong-shape": (requestId) => JSON.stringify({ requestId, result: { id: 7, state: 42 } }),
  deep: (requestId) =>
    `{"status":200,"requestId":"${requestId}","result":{"state":"running","extra":` +
    `${"[".repeat(50_000)}"a\\u0041\\/"${"]".repeat(50_000)}}}`,
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
  // Answers before the fault is taken (401, 429 of the limit) are never shaped by it.
  const taken: { fault?: Fault } = {};
  const answer = (status: number, fields: Record<string, unknown>, headers: OutgoingHttpHeaders = {}) =>
    respond(context, req, res, entry, taken.fault, {
      status,
      fields,
      headers: { ...extraHeaders, ...headers },
    });

  let body: Buffer;
  try {
    body = await readBody(req);
  } catch (error) {
    if (!(error instanceof BodyTooLargeError)) throw error;
    // The rest of the body is still on the wire: this connection cannot be reused.
    return answer(413, { error: `Payload Too Large: ${error.message}` }, { Connection: "close" });
  }

  // The command is logged even when the request is refused before it reaches the state machine.
  if (entry.route === "changeState") {
    const parsed = parseCommandBody(body);
    if (parsed.command !== undefined) entry.command = parsed.command;
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

  const fault = (taken.fault = context.faults.take(entry.route, method));
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
    if (fault.stall === true || fault.stall === "before") return stall(context, res, entry);
    if (fault.status !== undefined) {
      const seconds = fault.retryAfterSeconds ?? 1;
      const headers =
        fault.status === 429
          ? rateLimitWaitHeaders(fault.rateLimitHeaders ?? "both", seconds, context.now())
          : {};
      const standard = fault.status === 429 ? "TOO_MANY_REQUESTS" : (STATUS_CODES[fault.status] ?? "Error");
      return answer(fault.status, { error: fault.message ?? standard }, headers);
    }
  }

  const { outcome, headers } = runOperation(context, match, method, pathname, body, fault);
  extraHeaders = { ...extraHeaders, ...headers };
  if (outcome.command !== undefined) entry.command = outcome.command;
  if (outcome.stateBefore !== undefined) entry.stateBefore = outcome.stateBefore;
  if (outcome.stateAfter !== undefined) entry.stateAfter = outcome.stateAfter;
  if (outcome.warehouseRefusal !== undefined) entry.warehouseRefusal = outcome.warehouseRefusal;

  // The operation was applied; the answer is lost or mangled on the way back.
  if (fault?.drop === "after") return drop(context, res, entry);
  if (fault?.stall === "after") return stall(context, res, entry);
  if (fault?.malformed !== undefined) {
    return respond(context, req, res, entry, fault, {
      status: 200,
      text: MALFORMED_BODIES[fault.malformed],
      headers: extraHeaders,
    });
  }
  if (fault?.noContent && outcome.status === 200) {
    return respond(context, req, res, entry, fault, { status: 204, text: () => "", headers: extraHeaders });
  }
  if (outcome.error !== undefined) return answer(outcome.status, { error: outcome.error });
  return answer(outcome.status, outcome.result === undefined ? {} : { result: outcome.result });
}

type Answer =
  | { status: number; fields: Record<string, unknown>; headers: OutgoingHttpHeaders }
  | { status: number; text: (requestId: string) => string; headers: OutgoingHttpHeaders };

/**
 * Writes an answer and logs it: an envelope built from `fields` with a fresh request id (in the
 * body and in X-Request-Id), or a ready-made text. The fault, if any, shapes it: echoed
 * credentials, padding, trickling.
 */
async function respond(
  context: ApiContext,
  req: IncomingMessage,
  res: ServerResponse,
  entry: RequestLogEntry,
  fault: Fault | undefined,
  reply: Answer,
): Promise<void> {
  const { status } = reply;
  const echo =
    fault?.echoSecret === undefined
      ? undefined
      : echoValue(fault.echoForm ?? "raw", req.headers.authorization ?? "", context.keys.keySecret);
  const requestId = echo !== undefined && fault?.echoSecret === "requestId" ? echo : randomUUID();
  const headers: OutgoingHttpHeaders = {
    ...reply.headers,
    "Content-Type": "application/json; charset=utf-8",
  };
  if (echo !== undefined && fault?.echoSecret === "header") headers["X-Echo-Authorization"] = echo;
  let text: string;
  if ("text" in reply) {
    text = reply.text(requestId);
  } else if (echo !== undefined && fault?.echoSecret === "non-json-body" && status !== 200) {
    text = shortEchoBody(echo);
    headers["Content-Type"] = "text/plain; charset=utf-8";
  } else {
    const fields = { ...reply.fields };
    if (echo !== undefined && fault?.echoSecret === "long-body" && status !== 200) {
      fields.error = longEchoMessage(echo);
    }
    const result = fields.result as Record<string, unknown> | undefined;
    if (echo !== undefined && fault?.echoSecret === "service-field" && result !== undefined) {
      fields.result = { ...result, name: echo };
    }
    if (status === 200 && typeof result?.state === "string") entry.stateShown = result.state;
    const envelope = status === 200 ? { status, requestId, ...fields } : { status, ...fields, requestId };
    text = JSON.stringify(envelope);
    // Escapes go into the JSON text as written, not escaped once more.
    if (fault?.echoForm === "escapes" && echo !== undefined)
      text = text.split(JSON.stringify(echo).slice(1, -1)).join(echo);
  }
  if (status !== 204) {
    headers["X-Request-Id"] = requestId;
    entry.requestId = requestId;
  }
  entry.status = status;
  context.log.record(entry);
  if (status === 204) {
    res.writeHead(204, reply.headers);
    res.end();
    return;
  }
  const shape = {
    trickleMs: fault?.trickleMs,
    trickleBytes: fault?.trickleBytes,
    oversizeBytes: fault?.oversizeBytes,
  };
  await sendShaped(res, status, text, headers, shape, context.closing);
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

/** Holds the connection without ever answering, until the client hangs up or the emulator closes. */
async function stall(context: ApiContext, res: ServerResponse, entry: RequestLogEntry): Promise<void> {
  entry.status = "stalled";
  context.log.record(entry);
  await new Promise<void>((resolve) => {
    if (context.closing.aborted || res.destroyed) return resolve();
    res.once("close", () => resolve());
    context.closing.addEventListener("abort", () => resolve(), { once: true });
  });
  res.socket?.destroy();
}

function drop(context: ApiContext, res: ServerResponse, entry: RequestLogEntry): void {
  dropConnection(res);
  entry.status = "dropped";
  context.log.record(entry);
}
