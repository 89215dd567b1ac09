import { util, type Dispatcher } from "undici";
import {
  ApiConnectionError,
  ApiError,
  ApiTimeoutError,
  createApiError,
  ResponseValidationError,
} from "./errors";
import { isUuid, type RequestTarget } from "./guards";
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
  /** The URL, already checked against the operation's template. */
  target: RequestTarget;
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
  let answer: Answer;
  try {
    answer = await exchange(req);
  } catch (cause) {
    return transportFailure(method, path, cause, secrets, cause === TIMED_OUT, req.totalTimeoutMs);
  }
  const { status, received, text, bytes } = answer;
  const label = String(status);
  const json = parseJson(text);
  const requestId = pickRequestId(json, received, secrets);

  // Never below 200: the exchange keeps the final answer, never an informational one.
  if (status < 300) {
    const invalid = (issues: string[]): Attempt<never> => {
      const headers = flattenHeaders(received);
      return {
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
      };
    };
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

  // Flattened only here and for an invalid answer: an answer that fits needs none but the request id.
  const headers = flattenHeaders(received);
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

/** What an exchange received: a final status, its headers and the body up to `MAX_BODY_BYTES`. */
interface Answer {
  status: number;
  received: ReceivedHeaders;
  text: string;
  /** More than `MAX_BODY_BYTES` when the body was cut. */
  bytes: number;
}

/** Why an exchange ended early when its time ran out (compared by identity, never shown). */
// Stryker disable next-line StringLiteral: never shown (the failure says how long the attempt had): equivalent
const TIMED_OUT = new Error("the attempt's time ran out");

/**
 * One request and its answer through the dispatcher's own handler interface, not `request()`:
 * no body stream, abort signal or promise per chunk is made for an answer of a few KB, which
 * costs about a tenth of a loopback read (`bench/overhead.ts`, P1). Rejects with undici's error,
 * or with `TIMED_OUT` once `totalTimeoutMs` has passed (at once, even while still connecting).
 */
function exchange(req: AttemptRequest<unknown>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const options: Dispatcher.DispatchOptions = {
      origin: req.target.origin,
      path: req.target.pathname,
      method: req.method as Dispatcher.HttpMethod,
      headers: requestHeaders(req.authorization, req.body !== undefined),
      // JSON.stringify(undefined) is undefined: no body.
      body: JSON.stringify(req.body) as string | undefined,
      headersTimeout: req.timeouts.headersMs,
      bodyTimeout: req.timeouts.bodyMs,
    };
    const handler = new ExchangeHandler(resolve, reject, Math.max(1, req.totalTimeoutMs));
    try {
      req.dispatcher.dispatch(options, handler);
    } catch (error) {
      // A dispatcher of the caller's own may throw rather than report: the timer goes all the same.
      handler.fail(error);
    }
  });
}

/**
 * Collects one answer: the final one (an informational 1xx answer only comes before it). The
 * body is kept up to `MAX_BODY_BYTES`; past that the request is aborted (and its connection with
 * it), so a huge answer costs the cap in memory, not its size. Settles once: whatever the
 * dispatcher reports after that (the error of its own abort) is dropped.
 *
 * It speaks both of undici's handler interfaces: undici 7 calls the `onRequestStart` family, and
 * a dispatcher of undici 6 (a caller's own, through `ApiClientOptions.dispatcher`) only the
 * `onConnect` family, which undici 7 ignores when the first is there.
 */
class ExchangeHandler implements Dispatcher.DispatchHandler {
  /** Aborts the request once it has started (undefined before). */
  private abort: ((reason: Error) => void) | undefined;
  private status = 0;
  private received: ReceivedHeaders = {};
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  private settled = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly resolve: (answer: Answer) => void,
    private readonly reject: (cause: unknown) => void,
    totalTimeoutMs: number,
  ) {
    this.timer = setTimeout(() => {
      this.fail(TIMED_OUT);
      this.abort?.(TIMED_OUT);
    }, totalTimeoutMs);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.started((reason) => controller.abort(reason));
  }

  onConnect(abort: (reason?: Error) => void): void {
    this.started(abort);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    status: number,
    headers: ReceivedHeaders,
  ): void {
    // An informational (1xx) answer is replaced by the final one, which follows it.
    this.status = status;
    this.received = headers;
  }

  onHeaders(status: number, rawHeaders: Buffer[]): boolean {
    this.status = status;
    this.received = util.parseHeaders(rawHeaders);
    return true;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.data(chunk);
  }

  onData(chunk: Buffer): boolean {
    this.data(chunk);
    return true;
  }

  onResponseEnd(): void {
    this.finish();
  }

  onComplete(): void {
    this.finish();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.fail(error);
  }

  onError(error: Error): void {
    this.fail(error);
  }

  /** Fails the exchange with `cause` (never nullish: a dispatcher may report a bare null). */
  fail(cause: unknown): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.reject(cause ?? new Error("the dispatcher failed without saying why"));
  }

  private started(abort: (reason: Error) => void): void {
    this.abort = abort;
    // Out of time while it waited for a connection: it is not sent.
    if (this.settled) abort(TIMED_OUT);
  }

  private data(chunk: Buffer): void {
    if (this.settled) return;
    this.bytes += chunk.length;
    if (this.bytes > MAX_BODY_BYTES) {
      this.chunks.push(chunk.subarray(0, chunk.length - (this.bytes - MAX_BODY_BYTES)));
      this.finish();
      // The rest of the answer is never read.
      this.abort?.(new Error(`body larger than ${MAX_BODY_BYTES} bytes`));
      return;
    }
    this.chunks.push(chunk);
  }

  private finish(): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    const text = Buffer.concat(this.chunks).toString("utf8");
    this.resolve({ status: this.status, received: this.received, text, bytes: this.bytes });
  }
}

function transportFailure(
  method: string,
  path: string,
  cause: unknown,
  secrets: readonly string[],
  aborted: boolean,
  totalTimeoutMs: number,
): Attempt<never> {
  // Stryker disable next-line OptionalChaining: never nullish here (the exchange fails with an Error in place of a nullish cause): equivalent
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

/** Response headers as undici gives them: lower-case names, a list for a repeated header. */
type ReceivedHeaders = Record<string, string | string[] | undefined>;

function flattenHeaders(raw: ReceivedHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    // Stryker disable next-line ConditionalExpression: undici's response headers never hold undefined (the type allows it): equivalent
    if (value !== undefined) out[name.toLowerCase()] = headerValue(value);
  }
  return out;
}

/** A received header's value as one string: a repeated header's values joined by a comma. */
function headerValue(value: string | string[]): string;
function headerValue(value: string | string[] | undefined): string | undefined;
function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
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
  received: ReceivedHeaders,
  secrets: readonly string[],
): string | undefined {
  const fromBody = (json as { requestId?: unknown } | undefined)?.requestId;
  const raw = typeof fromBody === "string" && fromBody ? fromBody : headerValue(received["x-request-id"]);
  if (!raw) return undefined;
  // The usual request id, a uuid, is short and holds no Authorization header: only a form of the
  // secret could hide in it, and none does. The redaction's patterns need not run.
  if (isUuid(raw) && !secrets.some((form) => raw.includes(form))) return raw;
  return truncate(redactSecrets(raw, secrets), MAX_REQUEST_ID_CHARS);
}
