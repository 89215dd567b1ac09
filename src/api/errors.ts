/**
 * Errors of the management API client. One base class, one subclass per kind, chosen by
 * `createApiError`. Messages read `<status> <server message> (<METHOD> <path>, requestId <id>)`
 * and never carry the Authorization header or the key secret.
 */

export interface ApiErrorInit {
  status: number | undefined;
  message: string;
  serverMessage?: string;
  requestId?: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  cause?: unknown;
  /** The class name, set by each subclass (constructor names do not survive serialization). */
  name?: string;
}

/**
 * Finishes an Error subclass instance. Needed because in-repo programs capture this module *by
 * value*, and Pulumi's closure serializer rewrites `super(...)` into `Error.call(this, ...)`,
 * which sets neither the message nor the stack; implicit subclass constructors also lose their
 * arguments there, so every subclass below has an explicit one.
 */
function finishError(error: Error, name: string, message: string, cause: unknown): void {
  error.name = name;
  error.message = message;
  if (cause !== undefined) (error as { cause?: unknown }).cause = cause;
  if (!Object.prototype.hasOwnProperty.call(error, "stack")) Error.captureStackTrace?.(error);
}

export class ApiError extends Error {
  /** HTTP status, or undefined when no response arrived (connection, timeout). */
  readonly status: number | undefined;
  /** The `requestId` of the error envelope (or the X-Request-Id header), for support tickets. */
  readonly requestId: string | undefined;
  /** The server's own description of the problem (the envelope's `error`). */
  readonly serverMessage: string | undefined;
  readonly method: string;
  /** Path of the request, relative to the base URL: never contains credentials. */
  readonly path: string;
  /** Response headers (the request's headers are never kept: they hold the credentials). */
  readonly headers: Record<string, string>;

  constructor(init: ApiErrorInit) {
    super(init.message);
    finishError(this, init.name ?? "ApiError", init.message, init.cause);
    this.status = init.status;
    this.requestId = init.requestId;
    this.serverMessage = init.serverMessage;
    this.method = init.method;
    this.path = init.path;
    this.headers = init.headers ?? {};
  }
}

export class BadRequestError extends ApiError {
  constructor(init: ApiErrorInit) {
    super({ ...init, name: "BadRequestError" });
  }
}
export class AuthenticationError extends ApiError {
  constructor(init: ApiErrorInit) {
    super({ ...init, name: "AuthenticationError" });
  }
}
export class PermissionDeniedError extends ApiError {
  constructor(init: ApiErrorInit) {
    super({ ...init, name: "PermissionDeniedError" });
  }
}
export class NotFoundError extends ApiError {
  constructor(init: ApiErrorInit) {
    super({ ...init, name: "NotFoundError" });
  }
}
export class ConflictError extends ApiError {
  constructor(init: ApiErrorInit) {
    super({ ...init, name: "ConflictError" });
  }
}
/** 422 and 424: the request was understood but cannot apply now (424: the service is idle). */
export class UnprocessableError extends ApiError {
  constructor(init: ApiErrorInit) {
    super({ ...init, name: "UnprocessableError" });
  }
}
export class RateLimitError extends ApiError {
  constructor(init: ApiErrorInit) {
    super({ ...init, name: "RateLimitError" });
  }
}
export class ServerError extends ApiError {
  constructor(init: ApiErrorInit) {
    super({ ...init, name: "ServerError" });
  }
}
/** No response: refused, reset or dropped connection. The undici error is the `cause`. */
export class ApiConnectionError extends ApiError {
  constructor(init: ApiErrorInit) {
    super({ ...init, name: "ApiConnectionError" });
  }
}
/** No response in time: connect, headers or body timeout. */
export class ApiTimeoutError extends ApiError {
  constructor(init: ApiErrorInit) {
    super({ ...init, name: "ApiTimeoutError" });
  }
}

/**
 * The request worked but the answer did not fit the schema. Deliberately not an ApiError
 * subclass of the HTTP kinds: the transport is fine, the data is not (ky does the same).
 */
export class ResponseValidationError extends Error {
  readonly status: number;
  readonly requestId: string | undefined;
  readonly method: string;
  readonly path: string;
  /** One line per problem, `<path>: <message>`. */
  readonly issues: string[];
  constructor(init: { status: number; requestId?: string; method: string; path: string; issues: string[] }) {
    const message =
      `Unexpected response to ${init.method} ${init.path} (status ${init.status}` +
      `${init.requestId ? `, requestId ${init.requestId}` : ""}): ${init.issues.join("; ")}`;
    super(message);
    finishError(this, "ResponseValidationError", message, undefined);
    this.status = init.status;
    this.requestId = init.requestId;
    this.method = init.method;
    this.path = init.path;
    this.issues = init.issues;
  }
}

/** Bad configuration or input, found before any request is sent. */
export class ConfigurationError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    const message =
      problems.length === 1 ? problems[0] : `Invalid configuration:\n- ${problems.join("\n- ")}`;
    super(message);
    finishError(this, "ConfigurationError", message, undefined);
    this.problems = problems;
  }
}

/** The error class for an HTTP status. */
export function errorClassForStatus(status: number): typeof ApiError {
  if (status === 400) return BadRequestError;
  if (status === 401) return AuthenticationError;
  if (status === 403) return PermissionDeniedError;
  if (status === 404) return NotFoundError;
  if (status === 409) return ConflictError;
  if (status === 422 || status === 424) return UnprocessableError;
  if (status === 429) return RateLimitError;
  if (status >= 500) return ServerError;
  return ApiError;
}

/** The one factory: builds the right subclass for a response. */
export function createApiError(init: {
  status: number;
  serverMessage?: string;
  requestId?: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
}): ApiError {
  const ErrorClass = errorClassForStatus(init.status);
  const detail = init.serverMessage ? ` ${init.serverMessage}` : "";
  const where = `${init.method} ${init.path}${init.requestId ? `, requestId ${init.requestId}` : ""}`;
  return new ErrorClass({ ...init, message: `${init.status}${detail} (${where})` });
}
