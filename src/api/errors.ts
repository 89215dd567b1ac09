import { truncate } from "./redact";

/** The most characters of a value a message quotes: enough to recognise it, never a whole hostile input. */
export const QUOTED_CHARS = 120;

/** A value as every message quotes it: as JSON, cut to `QUOTED_CHARS`. */
export function quoted(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(truncate(value, QUOTED_CHARS));
  try {
    // JSON.stringify may throw on a deep value, String on a prototype-less one.
    return truncate(JSON.stringify(value) ?? String(value), QUOTED_CHARS);
  } catch {
    return `(a ${typeof value} that cannot be shown)`;
  }
}

/** Base class of every error this package throws: one `instanceof` catches them all. */
export class DbcloudError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** What an `ApiError` is built from (`createApiError` fills it from a response). */
export type ApiErrorInit = Pick<ApiError, "status" | "method" | "path"> &
  Partial<Pick<ApiError, "serverMessage" | "requestId" | "headers">> & {
    /** The whole message, already redacted. */
    message: string;
    cause?: unknown;
  };

/** What the errors of a request share: `ApiError` when the exchange failed, else `ResponseValidationError`. */
abstract class RequestError extends DbcloudError {
  /** The answer's `requestId` (or X-Request-Id header), redacted, for support tickets. */
  readonly requestId!: string | undefined;
  /** HTTP method of the request. */
  readonly method!: string;
  /** Path of the request, relative to the base URL: never contains credentials. */
  readonly path!: string;
  /** An allowlist of response headers, redacted (the request's headers are never kept). */
  readonly headers!: Record<string, string>;
  /** For PATCH and DELETE: an attempt got no definite answer or a 2xx that did not fit: it may be applied. */
  possiblyApplied = false;
}

/** Base class of every error of an HTTP exchange with the API; `instanceof` picks the kind. */
export class ApiError extends RequestError {
  /** HTTP status, or undefined when no response arrived (connection, timeout). */
  readonly status!: number | undefined;
  /** The server's own description of the problem (the envelope's `error`). */
  readonly serverMessage!: string | undefined;

  constructor(init: ApiErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    // The listed fields alone: nothing else the caller's object holds leaves on the error.
    const { status, requestId, serverMessage, method, path, headers = {} } = init;
    Object.assign(this, { status, requestId, serverMessage, method, path, headers });
  }
}

/** 400: the server will not process the request as sent. */
export class BadRequestError extends ApiError {}
/** 401: the key pair was refused. */
export class AuthenticationError extends ApiError {}
/** 403: the key may not do this. */
export class PermissionDeniedError extends ApiError {}
/** 404: no such service or endpoint. */
export class NotFoundError extends ApiError {}
/** 409: the command conflicts with a transition in progress. */
export class ConflictError extends ApiError {}
/** 422 and 424: the request was understood but cannot apply now (424: the service is idle). */
export class UnprocessableError extends ApiError {}
/** 429: the key's rate limit is spent. */
export class RateLimitError extends ApiError {}
/** 5xx. */
export class ServerError extends ApiError {}
/** No response: refused, reset or dropped connection. */
export class ApiConnectionError extends ApiError {}
/** No response in time: connect, headers or body timeout. */
export class ApiTimeoutError extends ApiError {}
/** The caller's signal aborted the call: no answer awaited. The signal's reason is the `cause`. */
export class ApiCancelledError extends ApiError {}

/** The request worked but the answer did not fit: the exchange is fine, the data is not. */
export class ResponseValidationError extends RequestError {
  /** HTTP status of the answer (a 2xx). */
  readonly status!: number;
  /** One line per problem, `<path>: <message>`. */
  readonly issues!: string[];
  constructor(
    init: Pick<ResponseValidationError, "status" | "method" | "path" | "issues"> &
      Partial<Pick<ResponseValidationError, "requestId" | "headers">>,
  ) {
    const message =
      `Unexpected response to ${init.method} ${init.path} (status ${init.status}` +
      `${init.requestId ? `, requestId ${init.requestId}` : ""}): ${init.issues.join("; ")}`;
    super(message);
    const { status, requestId, method, path, issues, headers = {} } = init;
    Object.assign(this, { status, requestId, method, path, issues, headers });
  }
}

/** An argument, a resource's input or the state it acts on breaks the rules: nothing was sent. */
export class InvalidInputError extends DbcloudError {}

/** Bad configuration, found before any request is sent. */
export class ConfigurationError extends DbcloudError {
  /** Every problem found, one line each, naming the setting (never its secret value). */
  readonly problems: string[];
  constructor(problems: string[]) {
    super(problems.length === 1 ? problems[0] : `Invalid configuration:\n- ${problems.join("\n- ")}`);
    this.problems = problems;
  }
}

/** The statuses with a class of their own; any other 5xx is a ServerError, anything else an ApiError. */
const ERROR_CLASSES: Record<number, typeof ApiError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableError,
  424: UnprocessableError,
  429: RateLimitError,
};

/** The subclass for a response, its message `<status> <server message> (<METHOD> <path>, requestId <id>)`. */
export function createApiError(
  init: Omit<ApiErrorInit, "status" | "message" | "cause"> & { status: number },
): ApiError {
  const ErrorClass = ERROR_CLASSES[init.status] ?? (init.status >= 500 ? ServerError : ApiError);
  const detail = init.serverMessage ? ` ${init.serverMessage}` : "";
  const where = `${init.method} ${init.path}${init.requestId ? `, requestId ${init.requestId}` : ""}`;
  return new ErrorClass({ ...init, message: `${init.status}${detail} (${where})` });
}
