import type { Dispatcher } from "undici";
import { systemClock, wallNow, type Clock } from "./clock";
import { ApiError, ApiTimeoutError, ConfigurationError, ResponseValidationError } from "./errors";
import { checkApiUrl, checkedRequestTarget, endpointSegment, uuidSegment } from "./guards";
import { BudgetDeadlineError, type RateBudget } from "./rateBudget";
import { DEFAULT_RATE_LIMIT } from "./rateLimit";
import { basicAuthorization, secretForms } from "./redact";
import {
  DEFAULT_RETRY_POLICY,
  retryDelayMs,
  serverRequestedDelayMs,
  shouldRetry,
  type AttemptOutcome,
  type RetryPolicy,
} from "./retry";
import { serviceEnvelopeSchema, type ResponseSchema } from "./schemas";
import { sharedBudget, sharedDispatcher } from "./shared";
import { sendAttempt } from "./transport";
import {
  DEFAULT_TIMEOUTS,
  type ApiClientOptions,
  type AttemptTimeouts,
  type ClientStats,
  type RequestOptions,
  type ServiceCommand,
  type ServiceResult,
} from "./options";

export {
  DEFAULT_TIMEOUTS,
  type ApiClientOptions,
  type ApplyBudget,
  type AttemptTimeouts,
  type ClientStats,
  type RequestOptions,
  type ServiceCommand,
  type ServiceResult,
} from "./options";

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
  /** The base URL, checked and without a trailing slash. */
  readonly apiUrl: string;
  /** The API key ID (not a secret). */
  readonly keyId: string;
  /** Counters of this client's attempts, answers and budget waits. */
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

    // No problems were found above, so checkApiUrl returned the URL.
    this.apiUrl = (checked as { url: string }).url;
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
  private async send<T>(
    method: string,
    template: string,
    path: string,
    body: unknown,
    schema: ResponseSchema<T> | "any",
    options: RequestOptions,
  ): Promise<{ value: T; requestId: string | undefined }> {
    const target = checkedRequestTarget(this.apiUrl, template, path);
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
      let slot: { waitedMs: number; answered(): void } | undefined;
      if (this.budget) {
        try {
          slot = await this.budget.take(deadline, options.poll);
          this.stats.budgetWaitMs += slot.waitedMs;
        } catch (error) {
          if (error instanceof BudgetDeadlineError) outOfTime(error.message);
          throw error;
        }
      }
      const remainingMs = deadline === undefined ? Infinity : deadline - this.clock.now();
      if (remainingMs <= 0) outOfTime("the deadline passed before the request was sent");
      this.stats.attempts++;
      const result = await sendAttempt({
        target,
        method,
        path,
        body,
        schema,
        authorization: this.authorization,
        secrets: this.secrets,
        dispatcher: this.dispatcher,
        timeouts: this.timeouts,
        totalTimeoutMs: Math.min(this.timeouts.totalMs, remainingMs),
      });
      slot?.answered();
      this.count(result.label);
      if (applyBudget && !REFUSALS.includes(result.label)) applyBudget.used++;
      if (result.ok) return { value: result.value, requestId: result.requestId };
      lastError = result.error;
      // No definite answer, a server error or an unreadable 2xx: the server may have applied it.
      const refused = result.outcome?.kind === "status" && result.outcome.status < 500;
      if (!refused) possiblyApplied = true;

      const now = this.clock.now();
      // A server's date is wall-clock time: only the wall clock turns it into a wait.
      const serverDelayMs = serverRequestedDelayMs(
        result.headers,
        wallNow(this.clock),
        this.retryPolicy.maxServerDelayMs,
      );
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
