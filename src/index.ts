/**
 * pulumi-dbcloud: Pulumi dynamic providers for a database cloud's management API. The emulator is
 * `pulumi-dbcloud/emulator`; the provider implementation `pulumi-dbcloud/provider`.
 */
export * from "./resources/serviceRunState";
export * from "./resources/reversePrivateEndpointDeletion";
export { getService, getServiceOutput } from "./resources/getService";
export type { GetServiceArgs, GetServiceOutputArgs } from "./resources/getService";
export { DEFAULT_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS } from "./provider/defaults";
export { KNOWN_STATES, type DesiredState } from "./provider/stateTable";

export { ApiClient } from "./api/client";
export {
  DEFAULT_TIMEOUTS,
  type ApiClientOptions,
  type ClientStats,
  type RequestOptions,
  type ServiceCommand,
  type ServiceResult,
} from "./api/options";
export {
  ApiCancelledError,
  ApiConnectionError,
  ApiError,
  ApiTimeoutError,
  AuthenticationError,
  BadRequestError,
  ConfigurationError,
  ConflictError,
  DbcloudError,
  InvalidInputError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ResponseValidationError,
  ServerError,
  UnprocessableError,
  type ApiErrorInit,
} from "./api/errors";
export type { RateBudget } from "./api/rateBudget";
export { DEFAULT_RATE_LIMIT, type RateLimit } from "./api/rateLimit";
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./api/retry";
export type * from "./api/serviceTypes";
export type { Clock } from "./api/clock";
export type { DispatcherTimeouts } from "./api/shared";
export { PACKAGE_VERSION } from "./api/version";
