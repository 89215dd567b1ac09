import { EventEmitter } from "node:events";
import type { Readable } from "node:stream";
import { request, type Dispatcher } from "undici";
import {
  ApiConnectionError,
  ApiError,
  ApiTimeoutError,
  createApiError,
  ResponseValidationError,
} from "./errors";
import { redactDeep, redactSecrets, truncate } from "./redact";
import type { AttemptOutcome } from "./retry";
import { errorEnvelopeSchema, type ResponseSchema } from "./schemas";
import type { DispatcherTimeouts } from "./shared";
import { USER_AGENT } from "./version";

/** Bodies are read up to this many bytes (a Service is a few KB); the rest is never buffered. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Longest server message kept on an error, after redaction. */
export const MAX_SERVER_MESSAGE_CHARS = 500;
/** Longest request id kept (a uuid is 36 characters). */
export const MAX_REQUEST_ID_CHARS = 100;
/** The only response headers an error keeps (redacted): what retries and support tickets need. */
export const KEPT_HEADERS: readonly string[] = [
  "content-type",
  "date",
  "retry-after",
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "x-request-id",
];

/** One HTTP attempt, as the client's retry loop sees it. */
export interface AttemptRequest<T> {
  /** The full URL, already checked against the operation's template. */
  url: string;
  method: string;
  /** Path relative to the base URL, for messages: never holds credentials. */
  path: string;
  body: unknown;
  /** Schema of a 2xx body; `"any"` takes any 2xx, with or without a body, as success. */
  schema: ResponseSchema<T> | "any";
  authorization: string;
  /** Values to redact from anything kept: every form of the key secret and its Basic token. */
  secrets: readonly string[];
  dispatcher: Dispatcher;
  timeouts: DispatcherTimeouts;
  /** Hard limit on the whole attempt (connect, headers and the entire body), in ms. */
  totalTimeoutMs: number;
}

export type Attempt<T> =
  | { ok: true; value: T; requestId: string | undefined; label: string }
  | {
      ok: false;
      error: ApiError | ResponseValidationError;
      /** Undefined when the answer arrived but did not fit (not retried). */
      outcome?: AttemptOutcome;
      /** Response headers as received (lower-case names), for the retry policy only: never kept. */
      headers: Record<string, string>;
      /** The status, or `connection` / `timeout`: what the client's stats count. */
      label: string;
    };

/** Sends one request and reads, validates and classifies its answer. Never throws. */
export async function sendAttempt<T>(req: AttemptRequest<T>): Promise<Attempt<T>> {
  const { method, path, secrets } = req;
  const abort = new AttemptAbort();
  const timer = setTimeout(() => abort.abort(), Math.max(1, req.totalTimeoutMs));
  let status: number;
  let headers: Record<string, string>;
  let text: string;
  let bytes: number;
  try {
    const response = await request(req.url, {
      method: method as Dispatcher.HttpMethod,
      dispatcher: req.dispatcher,
      signal: abort,
      headers: requestHeaders(req.authorization, req.body !== undefined),
      // JSON.stringify(undefined) is undefined: no body.
      body: JSON.stringify(req.body) as string | undefined,
      headersTimeout: req.timeouts.headersMs,
      bodyTimeout: req.timeouts.bodyMs,
    });
    status = response.statusCode;
    headers = flattenHeaders(response.headers);
    ({ text, bytes } = await readCapped(response.body, MAX_BODY_BYTES));
  } catch (cause) {
    return transportFailure(method, path, cause, secrets, abort.aborted, req.totalTimeoutMs);
  } finally {
    clearTimeout(timer);
  }
  const label = String(status);
  const json = parseJson(text);
  const requestId = pickRequestId(json, headers, secrets);

  // request() never resolves with a status below 200: it hands 1xx answers to onInfo and waits on.
  if (status < 300) {
    const invalid = (issues: string[]): Attempt<never> => ({
      ok: false,
      error: new ResponseValidationError({
        status,
        requestId,
        method,
        path,
        issues,
        headers: keptHeaders(headers, secrets),
      }),
      headers,
      label,
    });
    if (bytes > MAX_BODY_BYTES) return invalid([`(body): larger than ${MAX_BODY_BYTES} bytes`]);
    // Redacted before validation: a Service field echoing the secret never reaches an output.
    const safe = mayHoldSecret(text, secrets) ? redactDeep(json, secrets) : json;
    if (req.schema === "any") return { ok: true, value: safe as T, requestId, label };
    if (json === undefined) {
      return invalid([`(body): not JSON: ${JSON.stringify(truncate(redactSecrets(text, secrets), 80))}`]);
    }
    const parsed = req.schema.safeParse(safe);
    if (!parsed.success) return invalid(parsed.issues);
    return { ok: true, value: parsed.data, requestId, label };
  }

  const envelope = errorEnvelopeSchema().safeParse(json);
  const raw = envelope.success && envelope.data.error ? envelope.data.error : text.trim();
  const serverMessage = raw ? truncate(redactSecrets(raw, secrets), MAX_SERVER_MESSAGE_CHARS) : undefined;
  const error = createApiError({
    status,
    serverMessage,
    requestId,
    method,
    path,
    headers: keptHeaders(headers, secrets),
  });
  return { ok: false, error, outcome: { kind: "status", status }, headers, label };
}

/**
 * Whether any string parsed from `text` could hold a form of the secret. A JSON string can only
 * spell something the raw text does not contain through an escape, so a body with no backslash
 * and no form of the secret needs no walk over its parsed strings (the common case, and the
 * costly part of a read).
 */
export function mayHoldSecret(text: string, secrets: readonly string[]): boolean {
  return text.includes("\\") || secrets.some((form) => text.includes(form));
}

/** The request headers: a literal, then the content type when there is a body (no conditional spread: cheaper per request). */
function requestHeaders(authorization: string, hasBody: boolean): Record<string, string> {
  const headers: Record<string, string> = {
    authorization,
    accept: "application/json",
    "user-agent": USER_AGENT,
  };
  if (hasBody) headers["content-type"] = "application/json";
  return headers;
}

/**
 * The attempt's abort signal. undici takes an EventEmitter that emits `abort` as well as an
 * AbortSignal (its `signal` option), and an emitter costs a fraction of an AbortController and
 * its EventTarget listeners, made and dropped on every request.
 */
class AttemptAbort extends EventEmitter {
  aborted = false;
  abort(): void {
    this.aborted = true;
    this.emit("abort");
  }
}

/**
 * Reads a body as a stream, keeping at most `cap` bytes; past that the stream is destroyed
 * (and the connection with it), so a huge answer costs `cap` bytes of memory, not its size.
 * `bytes` is more than `cap` when the body was cut. Read through events rather than an async
 * iterator, which costs a promise per chunk.
 */
function readCapped(body: Readable, cap: number): Promise<{ text: string; bytes: number }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const done = () => resolve({ text: Buffer.concat(chunks).toString("utf8"), bytes });
    body.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > cap) {
        chunks.push(chunk.subarray(0, chunk.length - (bytes - cap)));
        // No more data or end after this: the rest of the answer is never read.
        body.destroy();
        done();
        return;
      }
      chunks.push(chunk);
    });
    body.once("end", done);
    body.once("error", reject);
  });
}

function transportFailure(
  method: string,
  path: string,
  cause: unknown,
  secrets: readonly string[],
  aborted: boolean,
  totalTimeoutMs: number,
): Attempt<never> {
  // Stryker disable next-line OptionalChaining: never nullish here (a dispatcher failing with null or undefined makes request() resolve with nothing, and reading its status throws a TypeError): equivalent
  const code = String((cause as { code?: unknown } | undefined)?.code ?? "");
  const timedOut = aborted || /TIMEOUT/.test(code);
  const detail = aborted
    ? `no complete answer within ${(totalTimeoutMs / 1000).toFixed(1)} s`
    : // Stryker disable next-line OptionalChaining: never nullish here (see `code` above): equivalent
      redactSecrets(`${code ? `${code}: ` : ""}${(cause as Error)?.message ?? String(cause)}`, secrets);
  const ErrorClass = timedOut ? ApiTimeoutError : ApiConnectionError;
  // The cause is rebuilt from redacted text: undici's own error is not kept (nothing of the
  // request may leave through a cause chain).
  const safeCause = Object.assign(new Error(detail), code ? { code } : {});
  const error: ApiError = new ErrorClass({
    status: undefined,
    message: `${timedOut ? "Timed out" : "Connection failed"} (${method} ${path}): ${detail}`,
    method,
    path,
    cause: safeCause,
  });
  const kind = timedOut ? "timeout" : "connection";
  return { ok: false, error, outcome: { kind }, headers: {}, label: kind };
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    // Stryker disable next-line ConditionalExpression: undici's response headers never hold undefined (the type allows it): equivalent
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

function keptHeaders(headers: Record<string, string>, secrets: readonly string[]): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    if (headers[name] !== undefined) kept[name] = truncate(redactSecrets(headers[name], secrets), 200);
  }
  return kept;
}

/** The parsed body, or undefined when it is not JSON (an empty body included: `JSON.parse("")` throws). */
function parseJson(text: string): unknown {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // Not JSON: undefined.
  }
  return json;
}

function pickRequestId(
  json: unknown,
  headers: Record<string, string>,
  secrets: readonly string[],
): string | undefined {
  const fromBody = (json as { requestId?: unknown } | undefined)?.requestId;
  const raw = typeof fromBody === "string" && fromBody ? fromBody : headers["x-request-id"];
  return raw ? truncate(redactSecrets(raw, secrets), MAX_REQUEST_ID_CHARS) : undefined;
}
