import type { Dispatcher } from "undici";
import type { z } from "zod";
import { systemClock, type Clock } from "./clock";
import { ApiError, ApiTimeoutError, ConfigurationError, ResponseValidationError } from "./errors";
import { checkApiUrl, checkedRequestUrl, endpointSegment, uuidSegment } from "./guards";
import { BudgetDeadlineError, DEFAULT_RATE_LIMIT, type RateBudget, type RateLimit } from "./rateBudget";
import { basicAuthorization, secretForms } from "./redact";
import {
  DEFAULT_RETRY_POLICY,
  retryDelayMs,
  serverRequestedDelayMs,
  shouldRetry,
  type AttemptOutcome,
  type RetryPolicy,
} from "./retry";
import { serviceEnvelopeSchema, type Service } from "./schemas";
import { sharedBudget, sharedDispatcher, type DispatcherTimeouts } from "./shared";
import { sendAttempt } from "./transport";

export type ServiceCommand = "start" | "stop";

/** Per-attempt limits: the dispatcher's connect, headers and body-idle timeouts, and a hard total. */
export interface AttemptTimeouts extends DispatcherTimeouts {
  /** The whole attempt (connect, headers and the entire body), however the server trickles it. */
  totalMs: number;
}

export interface ApiClientOptions {
  /** Base URL without `/v1`. `http://` only for loopback hosts. */
  apiUrl: string;
  keyId: string;
  keySecret: string;
  /** Client-side budget shared by the process; default 10 requests per 10 s; `false` turns it off. */
  rateLimit?: RateLimit | false;
  /** A budget of your own instead of the shared one (tests). */
  budget?: RateBudget;
  retry?: Partial<RetryPolicy>;
  /** Per-attempt timeouts. Defaults: `DEFAULT_TIMEOUTS`. */
  timeouts?: Partial<AttemptTimeouts>;
  clock?: Clock;
  /** Jitter source, [0, 1). */
  random?: () => number;
  /** Receives one line per retry (the resources print them as progress). */
  log?: (line: string) => void;
  dispatcher?: Dispatcher;
}

/** Counts requests that the server may have applied, across calls (the converger's command bound). */
export interface ApplyBudget {
  /** Requests sent so far whose answer was not a refusal (anything but 409 and 429). */
  used: number;
  /** No request is sent once `used` reaches this. */
  max: number;
}

export interface RequestOptions {
  /**
   * Absolute clock time that bounds the whole call: waiting for the rate budget, every attempt
   * and every retry. A call that cannot finish in time fails with `ApiTimeoutError`.
   */
  deadline?: number;
  /** For commands: shared count of sends that may have been applied; no send past its max. */
  applyBudget?: ApplyBudget;
}

export interface ServiceResult {
  service: Service;
  requestId: string | undefined;
}

export interface ClientStats {
  /** Attempts sent, retries included. */
  attempts: number;
  retries: number;
  /** Answers by status; `connection` and `timeout` for attempts without one. */
  outcomes: Record<string, number>;
  budgetWaitMs: number;
}

export const DEFAULT_TIMEOUTS: AttemptTimeouts = {
  connectMs: 10_000,
  headersMs: 30_000,
  bodyMs: 30_000,
  totalMs: 60_000,
};

/** The operations' path templates: the path sent must match its template exactly. */
const SERVICE_PATH = "/v1/organizations/{organizationId}/services/{serviceId}";
const STATE_PATH = `${SERVICE_PATH}/state`;
const ENDPOINT_PATH = `${SERVICE_PATH}/pipesReversePrivateEndpoints/{reversePrivateEndpointId}`;

/** Statuses that say the server refused the request without applying it (they do not use up an ApplyBudget). */
const REFUSALS: readonly string[] = ["409", "429"];

/**
 * The one authenticated HTTP client of the management API: three operations, typed results,
 * a shared rate budget, retries with backoff, bounded attempts and calls, and errors that never
 * carry the credentials.
 */
export class ApiClient {
  readonly apiUrl: string;
  readonly keyId: string;
  readonly stats: ClientStats = { attempts: 0, retries: 0, outcomes: {}, budgetWaitMs: 0 };
  private readonly retryPolicy: RetryPolicy;
  private readonly timeouts: AttemptTimeouts;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly log: (line: string) => void;
  private readonly budget: RateBudget | undefined;
  private readonly dispatcher: Dispatcher;
  /** Non-enumerable fields (set in the constructor): neither JSON nor inspect shows them. */
  declare private readonly authorization: string;
  declare private readonly secrets: string[];

  constructor(options: ApiClientOptions) {
    const problems: string[] = [];
    const checked = checkApiUrl(options.apiUrl ?? "");
    if ("problems" in checked) problems.push(`apiUrl: ${checked.problems.join("; ")}`);
    if (!options.keyId) problems.push("keyId: the API key ID is required");
    if (!options.keySecret) problems.push("keySecret: the API key secret is required");
    if (problems.length) throw new ConfigurationError(problems);

    this.apiUrl = "url" in checked ? checked.url : "";
    this.keyId = options.keyId;
    this.retryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.log = options.log ?? (() => undefined);
    const limit = options.rateLimit === undefined ? DEFAULT_RATE_LIMIT : options.rateLimit;
    this.budget =
      options.budget ?? (limit ? sharedBudget(this.apiUrl, this.keyId, limit, this.clock) : undefined);
    this.dispatcher = options.dispatcher ?? sharedDispatcher(this.timeouts);
    const authorization = basicAuthorization(options.keyId, options.keySecret);
    Object.defineProperty(this, "authorization", { value: authorization, enumerable: false });
    Object.defineProperty(this, "secrets", {
      value: secretForms(options.keyId, options.keySecret),
      enumerable: false,
    });
  }

  /** GET /v1/organizations/{organizationId}/services/{serviceId} */
  async getService(
    organizationId: string,
    serviceId: string,
    options: RequestOptions = {},
  ): Promise<ServiceResult> {
    const path = `/v1/organizations/${uuidSegment("organizationId", organizationId)}/services/${uuidSegment("serviceId", serviceId)}`;
    const { value, requestId } = await this.send(
      "GET",
      SERVICE_PATH,
      path,
      undefined,
      serviceEnvelopeSchema(),
      options,
    );
    return { service: value.result, requestId };
  }

  /** PATCH /v1/organizations/{organizationId}/services/{serviceId}/state with `{command}` */
  async changeServiceState(
    organizationId: string,
    serviceId: string,
    command: ServiceCommand,
    options: RequestOptions = {},
  ): Promise<ServiceResult> {
    if (command !== "start" && command !== "stop") {
      throw new TypeError(`command must be "start" or "stop", got ${JSON.stringify(command)}`);
    }
    const path = `/v1/organizations/${uuidSegment("organizationId", organizationId)}/services/${uuidSegment("serviceId", serviceId)}/state`;
    const { value, requestId } = await this.send(
      "PATCH",
      STATE_PATH,
      path,
      { command },
      serviceEnvelopeSchema(),
      options,
    );
    return { service: value.result, requestId };
  }

  /**
   * DELETE /v1/organizations/{organizationId}/services/{serviceId}/pipesReversePrivateEndpoints/{id}.
   * Any 2xx is success, with or without a body.
   */
  async deleteReversePrivateEndpoint(
    organizationId: string,
    serviceId: string,
    reversePrivateEndpointId: string,
    options: RequestOptions = {},
  ): Promise<{ requestId: string | undefined }> {
    const path =
      `/v1/organizations/${uuidSegment("organizationId", organizationId)}/services/${uuidSegment("serviceId", serviceId)}` +
      `/pipesReversePrivateEndpoints/${endpointSegment("reversePrivateEndpointId", reversePrivateEndpointId)}`;
    const { requestId } = await this.send("DELETE", ENDPOINT_PATH, path, undefined, "any", options);
    return { requestId };
  }

  /** What `JSON.stringify` shows of a client: never the credentials. */
  toJSON(): Record<string, unknown> {
    return { apiUrl: this.apiUrl, keyId: this.keyId };
  }

  /** One call: budget, attempts, retries and validation, all bounded by the caller's deadline. */
  private async send<S extends z.ZodType>(
    method: string,
    template: string,
    path: string,
    body: unknown,
    schema: S | "any",
    options: RequestOptions,
  ): Promise<{ value: z.infer<S>; requestId: string | undefined }> {
    const url = checkedRequestUrl(this.apiUrl, template, path);
    const { deadline, applyBudget } = options;
    const started = this.clock.now();
    const changes = method !== "GET";
    let possiblyApplied = false;
    let lastError: ApiError | ResponseValidationError | undefined;
    const fail = (error: ApiError | ResponseValidationError): never => {
      if (changes && possiblyApplied) error.possiblyApplied = true;
      throw error;
    };
    const outOfTime = (detail: string): never =>
      fail(
        lastError ??
          new ApiTimeoutError({
            status: undefined,
            message: `Timed out (${method} ${path}): ${detail}`,
            method,
            path,
          }),
      );

    for (let attempt = 1; ; attempt++) {
      if (applyBudget && applyBudget.used >= applyBudget.max) {
        fail(
          lastError ??
            new ApiError({
              status: undefined,
              message: `Not sent (${method} ${path}): ${applyBudget.max} commands already sent in this converge`,
              method,
              path,
            }),
        );
      }
      if (this.budget) {
        try {
          this.stats.budgetWaitMs += await this.budget.acquire(deadline);
        } catch (error) {
          if (error instanceof BudgetDeadlineError) outOfTime(error.message);
          throw error;
        }
      }
      const remainingMs = deadline === undefined ? undefined : deadline - this.clock.now();
      if (remainingMs !== undefined && remainingMs <= 0)
        outOfTime("the deadline passed before the request was sent");
      this.stats.attempts++;
      const result = await sendAttempt({
        url,
        method,
        path,
        body,
        schema,
        authorization: this.authorization,
        secrets: this.secrets,
        dispatcher: this.dispatcher,
        timeouts: this.timeouts,
        totalTimeoutMs: Math.min(this.timeouts.totalMs, remainingMs ?? Infinity),
      });
      this.count(result.label);
      if (applyBudget && !REFUSALS.includes(result.label)) applyBudget.used++;
      if (result.ok) return { value: result.value as z.infer<S>, requestId: result.requestId };
      lastError = result.error;
      // No definite answer, a server error or an unreadable 2xx: the server may have applied it.
      if (
        result.outcome === undefined ||
        !(result.outcome.kind === "status" && result.outcome.status < 500)
      ) {
        possiblyApplied = true;
      }

      const now = this.clock.now();
      const serverDelayMs = serverRequestedDelayMs(result.headers, now, this.retryPolicy.maxServerDelayMs);
      const rateLimited = result.outcome?.kind === "status" && result.outcome.status === 429;
      if (rateLimited && this.budget) {
        // Every caller shares the key: nobody sends before the server's window resets, waiters included.
        this.budget.blockUntil(now + (serverDelayMs ?? this.retryPolicy.baseDelayMs));
      }
      const delayMs = retryDelayMs({
        retry: attempt,
        policy: this.retryPolicy,
        serverDelayMs,
        random: this.random,
      });
      const retry =
        result.outcome !== undefined &&
        shouldRetry({
          method,
          path: template,
          outcome: result.outcome,
          attempt,
          elapsedMs: now - started,
          nextDelayMs: delayMs,
          policy: this.retryPolicy,
          remainingMs: deadline === undefined ? undefined : deadline - now,
        });
      if (!retry) fail(result.error);
      this.stats.retries++;
      // Stryker disable all: log wording, out of the mutation scope (stryker.config.mjs)
      this.log(
        `${method} ${path}: ${describeOutcome(result.outcome!)}; retrying in ${(delayMs / 1000).toFixed(1)}s ` +
          `(attempt ${attempt + 1}${rateLimited ? "" : ` of ${this.retryPolicy.maxAttempts}`})`,
      );
      // Stryker restore all
      await this.clock.sleep(delayMs);
    }
  }

  private count(outcome: string): void {
    this.stats.outcomes[outcome] = (this.stats.outcomes[outcome] ?? 0) + 1;
  }
}

// Stryker disable all: log wording, out of the mutation scope (stryker.config.mjs) (only the retry line above uses it)
function describeOutcome(outcome: AttemptOutcome): string {
  if (outcome.kind === "status")
    return outcome.status === 429 ? "429 rate limited" : `status ${outcome.status}`;
  return outcome.kind === "timeout" ? "timed out" : "connection failed";
}
// Stryker restore all
