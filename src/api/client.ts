import type { Dispatcher } from "undici";
import type { z } from "zod";
import { systemClock, type Clock } from "./clock";
import { ConfigurationError } from "./errors";
import { checkApiUrl, endpointSegment, uuidSegment } from "./guards";
import { DEFAULT_RATE_LIMIT, type RateBudget, type RateLimit } from "./rateBudget";
import { basicAuthorization } from "./redact";
import {
  DEFAULT_RETRY_POLICY,
  retryDelayMs,
  serverRequestedDelayMs,
  shouldRetry,
  type AttemptOutcome,
  type RetryPolicy,
} from "./retry";
import { deleteEnvelopeSchema, serviceEnvelopeSchema, type Service } from "./schemas";
import { sharedBudget, sharedDispatcher, type DispatcherTimeouts } from "./shared";
import { sendAttempt } from "./transport";

export type ServiceCommand = "start" | "stop";

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
  /** Per-attempt timeouts. Defaults: connect 10 s, headers 30 s, body 30 s. */
  timeouts?: Partial<DispatcherTimeouts>;
  clock?: Clock;
  /** Jitter source, [0, 1). */
  random?: () => number;
  /** Receives one line per retry (the resources print them as progress). */
  log?: (line: string) => void;
  dispatcher?: Dispatcher;
}

export interface RequestOptions {
  /** Absolute clock time after which no retry starts (the caller's own deadline). */
  deadline?: number;
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

export const DEFAULT_TIMEOUTS: DispatcherTimeouts = { connectMs: 10_000, headersMs: 30_000, bodyMs: 30_000 };

/**
 * The one authenticated HTTP client of the management API: three operations, typed results,
 * a shared rate budget, retries with backoff, per-attempt timeouts, and errors that never
 * carry the credentials.
 */
export class ApiClient {
  readonly apiUrl: string;
  readonly keyId: string;
  readonly stats: ClientStats = { attempts: 0, retries: 0, outcomes: {}, budgetWaitMs: 0 };
  private readonly retryPolicy: RetryPolicy;
  private readonly timeouts: DispatcherTimeouts;
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
      value: [options.keySecret, authorization.slice("Basic ".length)],
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
    const { value, requestId } = await this.send("GET", path, undefined, serviceEnvelopeSchema(), options);
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
      path,
      { command },
      serviceEnvelopeSchema(),
      options,
    );
    return { service: value.result, requestId };
  }

  /** DELETE /v1/organizations/{organizationId}/services/{serviceId}/pipesReversePrivateEndpoints/{endpointId} */
  async deleteReversePrivateEndpoint(
    organizationId: string,
    serviceId: string,
    reversePrivateEndpointId: string,
    options: RequestOptions = {},
  ): Promise<{ requestId: string | undefined }> {
    const path =
      `/v1/organizations/${uuidSegment("organizationId", organizationId)}/services/${uuidSegment("serviceId", serviceId)}` +
      `/pipesReversePrivateEndpoints/${endpointSegment("reversePrivateEndpointId", reversePrivateEndpointId)}`;
    const { requestId } = await this.send("DELETE", path, undefined, deleteEnvelopeSchema(), options);
    return { requestId };
  }

  /** What `JSON.stringify` shows of a client: never the credentials. */
  toJSON(): Record<string, unknown> {
    return { apiUrl: this.apiUrl, keyId: this.keyId };
  }

  /** One request with budget, retries and validation. */
  private async send<S extends z.ZodType>(
    method: string,
    path: string,
    body: unknown,
    schema: S,
    options: RequestOptions,
  ): Promise<{ value: z.infer<S>; requestId: string | undefined }> {
    const started = this.clock.now();
    for (let attempt = 1; ; attempt++) {
      if (this.budget) this.stats.budgetWaitMs += await this.budget.acquire();
      this.stats.attempts++;
      const result = await sendAttempt({
        url: `${this.apiUrl}${path}`,
        method,
        path,
        body,
        schema,
        authorization: this.authorization,
        secrets: this.secrets,
        dispatcher: this.dispatcher,
        timeouts: this.timeouts,
      });
      this.count(result.label);
      if (result.ok) return { value: result.value, requestId: result.requestId };

      const now = this.clock.now();
      const serverDelayMs = serverRequestedDelayMs(result.headers, now);
      if (result.outcome?.kind === "status" && result.outcome.status === 429 && this.budget) {
        // Every caller shares the key: nobody should send before the server's window resets.
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
          path,
          outcome: result.outcome,
          attempt,
          elapsedMs: now - started,
          nextDelayMs: delayMs,
          policy: this.retryPolicy,
        }) &&
        (options.deadline === undefined || now + delayMs < options.deadline);
      if (!retry) throw result.error;
      this.stats.retries++;
      this.log(
        `${method} ${path}: ${describeOutcome(result.outcome!)}; retrying in ${(delayMs / 1000).toFixed(1)}s ` +
          `(attempt ${attempt + 1} of ${this.retryPolicy.maxAttempts})`,
      );
      await this.clock.sleep(delayMs);
    }
  }

  private count(outcome: string): void {
    this.stats.outcomes[outcome] = (this.stats.outcomes[outcome] ?? 0) + 1;
  }
}

function describeOutcome(outcome: AttemptOutcome): string {
  if (outcome.kind === "status")
    return outcome.status === 429 ? "429 rate limited" : `status ${outcome.status}`;
  return outcome.kind === "timeout" ? "timed out" : "connection failed";
}
