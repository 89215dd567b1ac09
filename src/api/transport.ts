import { request, type Dispatcher } from "undici";
import type { z } from "zod";
import {
  ApiConnectionError,
  ApiError,
  ApiTimeoutError,
  createApiError,
  ResponseValidationError,
} from "./errors";
import { redactSecrets } from "./redact";
import type { AttemptOutcome } from "./retry";
import { errorEnvelopeSchema, formatIssues } from "./schemas";
import type { DispatcherTimeouts } from "./shared";
import { USER_AGENT } from "./version";

/** One HTTP attempt, as the client's retry loop sees it. */
export interface AttemptRequest<S extends z.ZodType> {
  url: string;
  method: string;
  /** Path relative to the base URL, for messages: never holds credentials. */
  path: string;
  body: unknown;
  schema: S;
  authorization: string;
  /** Values to redact from anything kept: the key secret and its Basic token. */
  secrets: readonly string[];
  dispatcher: Dispatcher;
  timeouts: DispatcherTimeouts;
}

export type Attempt<T> =
  | { ok: true; value: T; requestId: string | undefined; label: string }
  | {
      ok: false;
      error: Error;
      /** Undefined when the answer arrived but did not fit (not retried). */
      outcome?: AttemptOutcome;
      headers: Record<string, string>;
      /** The status, or `connection` / `timeout`: what the client's stats count. */
      label: string;
    };

/** Sends one request and reads, validates and classifies its answer. Never throws. */
export async function sendAttempt<S extends z.ZodType>(req: AttemptRequest<S>): Promise<Attempt<z.infer<S>>> {
  const { method, path } = req;
  let status: number;
  let headers: Record<string, string>;
  let text: string;
  try {
    const response = await request(req.url, {
      method: method as Dispatcher.HttpMethod,
      dispatcher: req.dispatcher,
      headers: {
        authorization: req.authorization,
        accept: "application/json",
        "user-agent": USER_AGENT,
        ...(req.body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      headersTimeout: req.timeouts.headersMs,
      bodyTimeout: req.timeouts.bodyMs,
    });
    status = response.statusCode;
    headers = flattenHeaders(response.headers);
    text = await response.body.text();
  } catch (cause) {
    return transportFailure(method, path, cause, req.secrets);
  }
  const label = String(status);

  const json = parseJson(text);
  const requestId = pickRequestId(json, headers);
  if (status >= 200 && status < 300) {
    const invalid = (issues: string[]): Attempt<never> => ({
      ok: false,
      error: new ResponseValidationError({ status, requestId, method, path, issues }),
      headers,
      label,
    });
    if (json === undefined) return invalid([`(body): not JSON: ${JSON.stringify(text.slice(0, 80))}`]);
    const parsed = req.schema.safeParse(json);
    if (!parsed.success) return invalid(formatIssues(parsed.error));
    return { ok: true, value: parsed.data, requestId, label };
  }

  const envelope = errorEnvelopeSchema().safeParse(json);
  const serverMessage =
    envelope.success && envelope.data.error
      ? envelope.data.error
      : text.trim()
        ? text.trim().slice(0, 200)
        : undefined;
  const error = createApiError({
    status,
    serverMessage: serverMessage === undefined ? undefined : redactSecrets(serverMessage, req.secrets),
    requestId,
    method,
    path,
    headers,
  });
  return { ok: false, error, outcome: { kind: "status", status }, headers, label };
}

function transportFailure(
  method: string,
  path: string,
  cause: unknown,
  secrets: readonly string[],
): Attempt<never> {
  const code = (cause as { code?: string }).code ?? "";
  const detail = redactSecrets(
    `${code ? `${code}: ` : ""}${(cause as Error)?.message ?? String(cause)}`,
    secrets,
  );
  const timedOut = /TIMEOUT/.test(code);
  const ErrorClass = timedOut ? ApiTimeoutError : ApiConnectionError;
  const error: ApiError = new ErrorClass({
    status: undefined,
    message: `${timedOut ? "Timed out" : "Connection failed"} (${method} ${path}): ${detail}`,
    method,
    path,
    cause,
  });
  const kind = timedOut ? "timeout" : "connection";
  return { ok: false, error, outcome: { kind }, headers: {}, label: kind };
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function pickRequestId(json: unknown, headers: Record<string, string>): string | undefined {
  const fromBody = (json as { requestId?: unknown } | undefined)?.requestId;
  if (typeof fromBody === "string" && fromBody) return fromBody;
  return headers["x-request-id"] || undefined;
}
