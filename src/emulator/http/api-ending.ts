// How an API request ends on the wire: an answer (shaped by the fault taken, if any), a dropped
// connection, or one held open and never answered. Each ending writes the request's log entry.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { ApiContext } from "./api-handler";
import { echoValue, longEchoMessage, shortEchoBody } from "./fault-answers";
import { dropConnection } from "./io";
import { sendShaped } from "./shaped-body";
import type { Fault, RequestLogEntry } from "../types";

/** What every step of one request shares: where it came from, where it goes, and its log entry. */
export interface Exchange {
  context: ApiContext;
  req: IncomingMessage;
  res: ServerResponse;
  entry: RequestLogEntry;
}

/** How a request ends: an answer, a dropped connection, or one held open and never answered. */
export type Ending = Answer | "drop" | "stall";

export type Answer =
  | { status: number; fields: Record<string, unknown>; headers: OutgoingHttpHeaders }
  | { status: number; text: (requestId: string) => string; headers: OutgoingHttpHeaders };

/**
 * Writes an answer and logs it: an envelope built from `fields` with a fresh request id (in the
 * body and in X-Request-Id), or a ready-made text. The fault, if any, shapes it: echoed
 * credentials, padding, trickling.
 */
export async function respond(
  { context, req, res, entry }: Exchange,
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

/** Carries out an ending; each kind logs the entry once it is settled. */
export function finish(exchange: Exchange, fault: Fault | undefined, ending: Ending): Promise<void> | void {
  if (ending === "drop") return drop(exchange);
  if (ending === "stall") return stall(exchange);
  return respond(exchange, fault, ending);
}

/** Holds the connection without ever answering, until the client hangs up or the emulator closes. */
async function stall({ context, res, entry }: Exchange): Promise<void> {
  entry.status = "stalled";
  context.log.record(entry);
  await new Promise<void>((resolve) => {
    if (context.closing.aborted || res.destroyed) return resolve();
    res.once("close", () => resolve());
    context.closing.addEventListener("abort", () => resolve(), { once: true });
  });
  res.socket?.destroy();
}

function drop({ context, res, entry }: Exchange): void {
  dropConnection(res);
  entry.status = "dropped";
  context.log.record(entry);
}
