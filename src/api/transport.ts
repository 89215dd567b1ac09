import { request, type Dispatcher } from "undici";
import { cancelledDetail, untilAborted } from "./abort";
import { timerMs } from "./clock";
import {
  ApiCancelledError,
  ApiConnectionError,
  ApiError,
  ApiTimeoutError,
  createApiError,
  ResponseValidationError,
} from "./errors";
import { redactParsed, redactSecrets, truncate } from "./redact";
import type { AttemptOutcome } from "./retry";
import { errorEnvelopeSchema, type ResponseSchema } from "./schemas";
import type { AttemptTimeouts } from "./options";
import { USER_AGENT } from "./version";

/** Bodies are read up to this many bytes (a Service is a few KB); the rest is never buffered. */
export const MAX_BODY_BYTES = 1024 * 1024;
const MAX_SERVER_MESSAGE_CHARS = 500;
export const MAX_REQUEST_ID_CHARS = 100;
/** Deepest nesting of a usable 2xx body (a Service nests 4 levels): every walk over it stays shallow. */
export const MAX_JSON_DEPTH = 64;
/** The only response headers an error keeps: what retries and support tickets need. */
const KEPT_HEADERS = /^(content-type|date|retry-after|x-ratelimit-(limit|remaining|reset)|x-request-id)$/;

export interface Operation<T> {
  method: string;
  /** The path must fit this template, and the retry policy reads it. */
  template: string;
  /** Relative to the base URL, for messages. */
  path: string;
  body?: unknown;
  /** `"any"` takes any 2xx as success, its body unread. */
  schema: ResponseSchema<T> | "any";
}

/** What every attempt of a client goes with. */
export interface Connection {
  authorization: string;
  /** Every form of the key secret and its Basic token, redacted from anything kept. */
  secrets: readonly string[];
  dispatcher: Dispatcher;
  timeouts: AttemptTimeouts;
}

interface AttemptRequest<T> extends Operation<T>, Connection {
  /** Already checked against the operation's template. */
  url: string;
  /** Hard limit on connect, headers and the entire body together. */
  totalTimeoutMs: number;
  signal?: AbortSignal;
}

/** An attempt's result; `label` (the status, `connection` or `timeout`) is what the stats count. */
export type Attempt<T> =
  | { ok: true; value: T; requestId: string | undefined; label: string }
  | {
      ok: false;
      error: ApiError | ResponseValidationError;
      /** Undefined when the answer arrived but did not fit, or the caller cancelled: not retried. */
      outcome?: AttemptOutcome;
      /** The request may have reached the server (a connection took it). */
      sent: boolean;
      /** As received, for the retry policy only: never kept. */
      headers: Record<string, string>;
      label: string;
    };

/** Sends one request and reads, validates and classifies its answer. Never throws. */
export async function sendAttempt<T>(req: AttemptRequest<T>): Promise<Attempt<T>> {
  const progress = { sent: false };
  return exchange(req, progress).then(
    // Never below 200: request() hands an informational answer to onInfo and waits for the final one.
    (answer) => (answer.status < 300 ? readSuccess(req, answer) : readFailure(req, answer)),
    (cause: unknown) => transportFailure(req, cause, progress.sent),
  );
}

type Answer = Awaited<ReturnType<typeof receive>>;

function readSuccess<T>(req: AttemptRequest<T>, answer: Answer): Attempt<T> {
  const { status, headers, text, json, requestId, label } = answer;
  if (req.schema === "any") return { ok: true, value: undefined as T, requestId, label };
  const problem = unusable(answer, req.secrets);
  // Redacted before validation: a Service field echoing the secret never reaches an output.
  const parsed = problem
    ? { success: false as const, issues: [problem] }
    : req.schema.safeParse(redactParsed(text, json, req.secrets));
  if (parsed.success) return { ok: true, value: parsed.data, requestId, label };
  const init = { ...where(req, headers), status, requestId, issues: parsed.issues };
  return { ok: false, error: new ResponseValidationError(init), sent: true, headers, label };
}

/** Why a 2xx body cannot be used, found before its shape is checked. */
function unusable({ bytes, text, json }: Answer, secrets: readonly string[]): string | undefined {
  if (bytes > MAX_BODY_BYTES) return `(body): larger than ${MAX_BODY_BYTES} bytes`;
  if (json === undefined)
    return `(body): not JSON: ${JSON.stringify(truncate(redactSecrets(text, secrets), 80))}`;
  if (nestsDeeper(json, MAX_JSON_DEPTH)) return `(body): nests deeper than ${MAX_JSON_DEPTH} levels`;
  return undefined;
}

function readFailure(req: AttemptRequest<unknown>, answer: Answer): Attempt<never> {
  const { status, headers, text, json, requestId, label } = answer;
  const envelope = errorEnvelopeSchema.safeParse(json);
  const raw = envelope.success && envelope.data.error ? envelope.data.error : text.trim();
  const serverMessage = raw ? truncate(redactSecrets(raw, req.secrets), MAX_SERVER_MESSAGE_CHARS) : undefined;
  const error = createApiError({ ...where(req, headers), status, serverMessage, requestId });
  return { ok: false, error, outcome: { kind: "status", status }, sent: true, headers, label };
}

/** Why an exchange ended early (compared by identity, never shown). */
const TIMED_OUT = new Error("the attempt's time ran out");
const CANCELLED = new Error("the caller cancelled the attempt");

/**
 * One request and its answer within `totalTimeoutMs`, or until the caller's signal aborts: either
 * fails the attempt at once, even while it waits for a connection.
 */
async function exchange(req: AttemptRequest<unknown>, progress: { sent: boolean }): Promise<Answer> {
  if (req.signal?.aborted) throw CANCELLED;
  const ended = new AbortController();
  const timer = setTimeout(() => ended.abort(TIMED_OUT), Math.max(1, timerMs(req.totalTimeoutMs)));
  const onCancel = () => ended.abort(CANCELLED);
  req.signal?.addEventListener("abort", onCancel, { once: true });
  const dispatcher = tracked(req.dispatcher, progress);
  try {
    return await untilAborted(receive({ ...req, dispatcher, signal: ended.signal }), ended.signal);
  } finally {
    clearTimeout(timer);
    req.signal?.removeEventListener("abort", onCancel);
  }
}

async function receive(req: AttemptRequest<unknown>) {
  const response = await request(req.url, {
    method: req.method as Dispatcher.HttpMethod,
    dispatcher: req.dispatcher,
    headers: {
      authorization: req.authorization,
      accept: "application/json",
      "user-agent": USER_AGENT,
      ...(req.body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: JSON.stringify(req.body) as string | undefined,
    headersTimeout: req.timeouts.headersMs,
    bodyTimeout: req.timeouts.bodyMs,
    signal: req.signal,
  });
  // undici names headers in lower case; a repeated header's values come as a list.
  const headers = Object.fromEntries(
    Object.entries(response.headers).map(([name, value]) => [name, [value].flat().join(", ")]),
  );
  const { text, bytes } = await readCapped(response.body);
  const json = parseJson(text);
  const status = response.statusCode;
  const fromBody = (json as { requestId?: unknown } | undefined)?.requestId;
  const rawId = typeof fromBody === "string" && fromBody ? fromBody : headers["x-request-id"];
  const requestId = rawId ? truncate(redactSecrets(rawId, req.secrets), MAX_REQUEST_ID_CHARS) : undefined;
  return { status, label: String(status), headers, text, bytes, json, requestId };
}

/** Leaving the loop early destroys the stream: a huge answer costs the cap in memory, not its size. */
async function readCapped(body: AsyncIterable<Buffer>): Promise<{ text: string; bytes: number }> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    bytes += chunk.length;
    if (bytes > MAX_BODY_BYTES) break;
  }
  return { text: Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES).toString("utf8"), bytes };
}

/**
 * `dispatcher`, marking the request sent once a connection has taken it, before its headers are
 * written: `onConnect`, or `onRequestStart` in undici's newer handler interface.
 */
function tracked(dispatcher: Dispatcher, progress: { sent: boolean }): Dispatcher {
  const track = (handler: Dispatcher.DispatchHandler) =>
    new Proxy(handler, {
      get(target, key) {
        const value: unknown = Reflect.get(target, key);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          if (key === "onConnect" || key === "onRequestStart") progress.sent = true;
          return (value as (...args: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  return dispatcher.compose((dispatch) => (options, handler) => dispatch(options, track(handler)));
}

/** The error of a call the caller's signal cancelled: the signal's reason is its cause. */
export function cancelledError(method: string, path: string, signal: AbortSignal): ApiCancelledError {
  const message = `Cancelled (${method} ${path}): ${cancelledDetail(signal)}`;
  return new ApiCancelledError({ status: undefined, message, method, path, cause: signal.reason });
}

function transportFailure(req: AttemptRequest<unknown>, cause: unknown, sent: boolean): Attempt<never> {
  const { method, path } = req;
  const failed = { ok: false as const, sent, headers: {} };
  if (cause === CANCELLED && req.signal)
    return { ...failed, error: cancelledError(method, path, req.signal), label: "cancelled" };
  const aborted = cause === TIMED_OUT;
  const code = String((cause as { code?: unknown } | null | undefined)?.code ?? "");
  const kind = aborted || /TIMEOUT/.test(code) ? "timeout" : "connection";
  const undiciDetail = `${code ? `${code}: ` : ""}${(cause as Error | undefined)?.message ?? String(cause)}`;
  const detail = aborted
    ? `no complete answer within ${(req.totalTimeoutMs / 1000).toFixed(1)} s`
    : redactSecrets(undiciDetail, req.secrets);
  const [ErrorClass, what] =
    kind === "timeout" ? [ApiTimeoutError, "Timed out"] : [ApiConnectionError, "Connection failed"];
  const error: ApiError = new ErrorClass({
    status: undefined,
    message: `${what} (${method} ${path}): ${detail}`,
    method,
    path,
    // Rebuilt from redacted text: nothing of the request leaves through undici's own error.
    cause: Object.assign(new Error(detail), code ? { code } : {}),
  });
  return { ...failed, error, outcome: { kind }, label: kind };
}

/** What an error names and keeps: the request, and the kept headers, redacted. */
function where(req: AttemptRequest<unknown>, headers: Record<string, string>) {
  const names = Object.keys(headers).filter((name) => KEPT_HEADERS.test(name));
  const kept = names.map((name) => [name, truncate(redactSecrets(headers[name], req.secrets), 200)]);
  return { method: req.method, path: req.path, headers: Object.fromEntries(kept) as Record<string, string> };
}

/** Undefined when the text is not JSON, an empty body included. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Whether parsed JSON nests more than `max` levels deep; it never recurses deeper than `max`. */
function nestsDeeper(value: unknown, max: number): boolean {
  if (value === null || typeof value !== "object") return false;
  return max === 0 || Object.values(value).some((child) => nestsDeeper(child, max - 1));
}
