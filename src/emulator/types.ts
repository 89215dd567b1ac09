// Public types of the emulator. Other code (tests, the demo, the benchmark) depends on these names.

/** How long each transitional state lasts before the service moves on, in milliseconds. */
export interface TransitionTimes {
  starting: number;
  stopping: number;
  awaking: number;
  provisioning: number;
  terminating: number;
  softdeleting: number;
}

export interface RateLimit {
  /** Requests allowed per key id in one window. */
  requests: number;
  /** Length of the fixed window, in milliseconds. */
  windowMs: number;
  /**
   * What a 429's reset names: the time left in the fixed window (the default, as the real
   * service answers), or always the whole window (as servers that count a sliding window, or a
   * proxy in front, answer): a reset that says nothing of when the window began.
   */
  reset?: "remaining" | "window";
}

export interface EmulatorOptions {
  /** Interface to listen on; default "127.0.0.1". */
  host?: string;
  /** Port; default 0 (an ephemeral port, read it back from `url`). */
  port?: number;
  /** Basic auth key id; default a random "emu-key-xxxxxxxx". */
  keyId?: string;
  /** Basic auth key secret; default 43 random base64url characters. */
  keySecret?: string;
  /** Milliseconds per transitional state; unspecified ones keep their defaults. */
  transitions?: Partial<TransitionTimes>;
  /** After a command is applied, GET keeps showing the pre-command state for this long. Default 0. */
  visibilityLagMs?: number;
  /** Per key id, fixed window. Default false (no limit). */
  rateLimit?: RateLimit | false;
  /** Services present from the start. */
  services?: SeedService[];
  /** Clock used by the state machine, the rate limit and the log; default Date.now. */
  now?: () => number;
  /** Source of randomness for probabilistic faults, in [0, 1); default Math.random. */
  random?: () => number;
  /** Which commands a warehouse refuses, and how; unspecified rules keep their defaults. */
  warehouseRules?: Partial<WarehouseRules>;
}

/** The answer to a command a warehouse refuses. Nothing is applied. */
export interface WarehouseRefusal {
  /** An integer from 400 to 499. */
  status: number;
  /** The `error` text of the answer. */
  message: string;
}

/**
 * Commands a warehouse refuses; `false` turns a rule off. The real service's status and wording
 * are not documented, so tests that must not depend on them can change both.
 */
export interface WarehouseRules {
  /** A stop of a primary while a secondary of its warehouse is not stopped. Default: on, 400. */
  primaryStop: WarehouseRefusal | false;
  /** A start of a secondary while its primary is stopped or stopping. Default: off. */
  secondaryStart: WarehouseRefusal | false;
}

export type WarehouseRule = keyof WarehouseRules;

export interface SeedService {
  /** Owning organization (uuid). Internal: it is not part of the Service object. */
  organizationId: string;
  /** Service id (uuid); generated when absent. */
  id?: string;
  name?: string;
  /** Initial state; default "running". A known transitional state moves on by itself. */
  state?: string;
  reversePrivateEndpointIds?: string[];
  /**
   * Extra or overriding Service fields (e.g. databaseVersion, endpoints, null values).
   * `state: null` makes the API show a null state; the service still changes state underneath.
   */
  fields?: Record<string, unknown>;
  /**
   * The warehouse (uuid) the service belongs to; default a warehouse of its own. These three win
   * over the same keys in `fields` (which may still set odd values, e.g. null, for a client to read).
   */
  dataWarehouseId?: string;
  /** Whether it is its warehouse's primary; default true. */
  isPrimary?: boolean;
  /** Default false. */
  isReadonly?: boolean;
}

/** A state the service moves to by itself after `afterMs`. */
export interface ScheduledState {
  state: string;
  afterMs: number;
}

/**
 * Where a 429's wait goes: both headers in delta seconds (the default), `Retry-After` alone in
 * seconds or as an HTTP date, `X-RateLimit-Reset` alone as delta seconds, epoch seconds or epoch
 * milliseconds, or no wait header at all.
 */
export type RateLimitHeaderForm =
  | "both"
  | "retry-after-seconds"
  | "retry-after-date"
  | "reset-delta"
  | "reset-epoch-seconds"
  | "reset-epoch-ms"
  | "none";

/**
 * Where an echo fault puts the caller's credentials: a response header (X-Echo-Authorization), the
 * request id (body and X-Request-Id), a short non-JSON error body, a JSON error message longer
 * than 10 kB (the value after the first 10 kB, several times), or a Service field (`name`).
 */
export type EchoPlace = "header" | "requestId" | "non-json-body" | "long-body" | "service-field";
/**
 * The key secret as is, the whole Authorization header, its base64 token, JSON-escaped,
 * URL-encoded, or the token spelled with JSON escapes (`\/`, and `\uXXXX` in mixed-case hex),
 * written as is into JSON text.
 */
export type EchoForm = "raw" | "authorization" | "base64" | "json-escaped" | "url-encoded" | "escapes";

export type FaultRoute = "getService" | "changeState" | "deleteEndpoint" | "any";

export interface Fault {
  /** Operation the fault applies to; default "any" (never the control surface). */
  route?: FaultRoute;
  /** HTTP method the fault applies to; default any. */
  method?: string;
  /** Answer this status with an error envelope; the operation is not applied. */
  status?: number;
  /** For status 429: value of Retry-After and X-RateLimit-Reset; default 1. */
  retryAfterSeconds?: number;
  /** Extra response headers. */
  headers?: Record<string, string>;
  /** Wait this long before handling the request (combines with the other kinds). */
  delayMs?: number;
  /** Destroy the socket without answering: "before" = not applied, "after" = applied, answer lost. */
  drop?: "before" | "after";
  /**
   * Answer 200 with a body that does not parse ("not-json"), does not fit the schema
   * ("wrong-shape"), or is a Service with a field nesting 50,000 levels and a string escape ("deep").
   */
  malformed?: "not-json" | "wrong-shape" | "deep";
  /** State change only: answer 200 with the current service without applying the command. */
  ignoreCommand?: boolean;
  /** With a status: the `error` text of the answer (e.g. "Invalid API key id", "Endpoint not found"). */
  message?: string;
  /** With status 429: which wait headers carry `retryAfterSeconds`; default both in delta seconds. */
  rateLimitHeaders?: RateLimitHeaderForm;
  /**
   * Never send headers: hold the socket until the client gives up or the emulator closes.
   * `true` or "before": the operation is not applied; "after": it is, and the answer never comes.
   */
  stall?: boolean | "before" | "after";
  /** Send the answer's body in chunks of `trickleBytes` (default 1), one per this many ms. */
  trickleMs?: number;
  trickleBytes?: number;
  /** Pad the answer (the 200 or the error envelope, still valid JSON) to this many bytes, streamed. */
  oversizeBytes?: number;
  /** Endpoint deletion only: delete it, then answer 204 with no body. */
  noContent?: boolean;
  /** Send the caller's credentials back, in `echoForm` (default "raw", the key secret as is). */
  echoSecret?: EchoPlace;
  echoForm?: EchoForm;
  /** State change only: the command is applied, then the service goes back to its previous state after this long (someone else flipping it). */
  flipBackAfterMs?: number;
  /** How many matching requests the fault applies to; default 1; Infinity allowed. */
  times?: number;
  /** Apply to this fraction of matching requests, `times` still being the cap. */
  probability?: number;
}

export type ApiRoute = "getService" | "changeState" | "deleteEndpoint" | "unknown";

export interface RequestLogEntry {
  seq: number;
  /** Clock time the request arrived, in ms. */
  at: number;
  method: string;
  path: string;
  route: ApiRoute;
  organizationId?: string;
  serviceId?: string;
  endpointId?: string;
  command?: string;
  /** "stalled": held without an answer until the client or the emulator closed the connection. */
  status: number | "dropped" | "stalled";
  /** The request id the answer carried, if it carried one. */
  requestId?: string;
  /** The state of the Service a 200 answer showed the client (GET shows it through the visibility lag). */
  stateShown?: string;
  /** True state of the service before and after the request, when the service was found. */
  stateBefore?: string;
  stateAfter?: string;
  /** Description of the fault applied to this request, if any. */
  fault?: string;
  rateLimited?: boolean;
  /** The warehouse rule that refused the command, if one did (nothing was applied). */
  warehouseRefusal?: WarehouseRule;
  authorized: boolean;
}

/** The Service object as the API returns it. */
export type ServiceView = Record<string, unknown> & { id: string; state: string; organizationId?: never };

export interface Emulator {
  /** Base URL, without `/v1`. */
  url: string;
  keyId: string;
  keySecret: string;
  /** Closes the server and every keep-alive connection. */
  close(): Promise<void>;
  addService(seed: SeedService): ServiceView;
  /** Out-of-band deletion: the API answers 404 from now on. */
  removeService(serviceId: string): void;
  /** The true current service (no visibility lag), state resolved at now(). */
  service(serviceId: string): ServiceView | undefined;
  /** Out-of-band state change (drift), optionally moving on by itself. */
  setState(serviceId: string, state: string, then?: ScheduledState): void;
  addEndpoint(serviceId: string, endpointId: string): void;
  hasEndpoint(serviceId: string, endpointId: string): boolean;
  /** Out-of-band deletion of an endpoint (someone else deleted it). */
  removeEndpoint(serviceId: string, endpointId: string): void;
  injectFault(fault: Fault): void;
  clearFaults(): void;
  setRateLimit(limit: RateLimit | false): void;
  setVisibilityLag(ms: number): void;
  setTransitions(transitions: Partial<TransitionTimes>): void;
  /** Changes the given warehouse rules from the next command on. */
  setWarehouseRules(rules: Partial<WarehouseRules>): void;
  /** API requests only (not the control surface), in arrival order. A snapshot. */
  readonly requests: RequestLogEntry[];
  clearRequests(): void;
}
