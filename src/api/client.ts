import { sleepUnlessAborted } from "./abort";
import { systemClock, wallNow, type Clock } from "./clock";
import {
  ApiError,
  ApiTimeoutError,
  ConfigurationError,
  InvalidInputError,
  quoted,
  ResponseValidationError,
} from "./errors";
import { checkApiUrl, checkedRequestUrl, limitProblems, pathOf } from "./guards";
import { BudgetDeadlineError, type RateBudget } from "./rateBudget";
import { DEFAULT_RATE_LIMIT } from "./rateLimit";
import { basicAuthorization, secretForms } from "./redact";
import * as retry from "./retry";
import { serviceEnvelopeSchema, type ServiceEnvelope } from "./schemas";
import { sharedBudget, sharedDispatcher } from "./shared";
import { cancelledError, sendAttempt, type Attempt, type Connection, type Operation } from "./transport";
import {
  DEFAULT_TIMEOUTS,
  type ApiClientOptions,
  type CallOptions,
  type ClientStats,
  type ServiceCommand,
  type ServiceResult,
} from "./options";

const SERVICE_PATH = "/v1/organizations/{organizationId}/services/{serviceId}";
const STATE_PATH = `${SERVICE_PATH}/state`;
const ENDPOINT_PATH = `${SERVICE_PATH}/pipesReversePrivateEndpoints/{reversePrivateEndpointId}`;

/** The commands of the state-change operation, the one list. */
export const SERVICE_COMMANDS = Object.freeze(["start", "stop"] as const);
const COMMAND_CHOICES = SERVICE_COMMANDS.map(quoted).join(" or ");
export const isServiceCommand = (value: unknown): value is ServiceCommand =>
  (SERVICE_COMMANDS as readonly unknown[]).includes(value);

/** Every 4xx says the server refused the request without applying it: it uses up no ApplyBudget. */
const REFUSAL = /^4\d\d$/;

/**
 * The one authenticated client of the management API: three typed operations, a shared rate budget,
 * retries with backoff, bounded attempts and calls, and errors that never carry the credentials.
 */
export class ApiClient {
  /** The base URL, without a trailing slash. */
  readonly apiUrl: string;
  /** The API key ID (not a secret). */
  readonly keyId: string;
  /** Counters of this client's attempts, answers and budget waits. */
  readonly stats: ClientStats = { attempts: 0, retries: 0, outcomes: {}, budgetWaitMs: 0 };
  private readonly retryPolicy: retry.RetryPolicy;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly log: (line: string) => void;
  private readonly budget: RateBudget | undefined;
  /** Non-enumerable (set in the constructor): neither JSON nor inspect shows its credentials. */
  declare private readonly connection: Connection;

  constructor(options: ApiClientOptions) {
    const checked = checkApiUrl(options.apiUrl ?? "");
    const problems = "problems" in checked ? [`apiUrl: ${checked.problems.join("; ")}`] : [];
    if (!options.keyId) problems.push("keyId: the API key ID is required");
    if (!options.keySecret) problems.push("keySecret: the API key secret is required");
    problems.push(...limitProblems("timeouts", options.timeouts), ...limitProblems("retry", options.retry));
    if (problems.length || !("url" in checked)) throw new ConfigurationError(problems);
    this.apiUrl = checked.url;
    this.keyId = options.keyId;
    this.retryPolicy = { ...retry.DEFAULT_RETRY_POLICY, ...options.retry };
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.log = options.log ?? (() => undefined);
    const limit = options.rateLimit === undefined ? DEFAULT_RATE_LIMIT : options.rateLimit;
    this.budget =
      options.budget ??
      (limit ? sharedBudget(this.apiUrl, this.keyId, limit, this.clock, options.rateLimitStore) : undefined);
    const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    const connection: Connection = {
      authorization: basicAuthorization(options.keyId, options.keySecret),
      secrets: secretForms(options.keyId, options.keySecret),
      dispatcher: options.dispatcher ?? sharedDispatcher(timeouts),
      timeouts,
    };
    Object.defineProperty(this, "connection", { value: connection });
  }

  /** GET /v1/organizations/{organizationId}/services/{serviceId} */
  async getService(
    organizationId: string,
    serviceId: string,
    options: CallOptions = {},
  ): Promise<ServiceResult> {
    const path = pathOf(SERVICE_PATH, { organizationId, serviceId });
    return this.sendForService({ method: "GET", template: SERVICE_PATH, path }, options);
  }

  /** PATCH /v1/organizations/{organizationId}/services/{serviceId}/state with `{command}` */
  async changeServiceState(
    organizationId: string,
    serviceId: string,
    command: ServiceCommand,
    options: CallOptions = {},
  ): Promise<ServiceResult> {
    if (!isServiceCommand(command))
      throw new InvalidInputError(`command must be ${COMMAND_CHOICES}, got ${quoted(command)}`);
    const path = pathOf(STATE_PATH, { organizationId, serviceId });
    return this.sendForService({ method: "PATCH", template: STATE_PATH, path, body: { command } }, options);
  }

  /** DELETE .../services/{serviceId}/pipesReversePrivateEndpoints/{id}: any 2xx is success, body or none. */
  async deleteReversePrivateEndpoint(
    organizationId: string,
    serviceId: string,
    reversePrivateEndpointId: string,
    options: CallOptions = {},
  ): Promise<{ requestId: string | undefined }> {
    const path = pathOf(ENDPOINT_PATH, { organizationId, serviceId, reversePrivateEndpointId });
    const operation = { method: "DELETE", template: ENDPOINT_PATH, path, schema: "any" as const };
    const { requestId } = await this.send(operation, options);
    return { requestId };
  }

  /** What `JSON.stringify` shows of a client: never the credentials. */
  toJSON(): Record<string, unknown> {
    return { apiUrl: this.apiUrl, keyId: this.keyId };
  }

  private async sendForService(operation: Omit<Operation<ServiceEnvelope>, "schema">, options: CallOptions) {
    const { value, requestId } = await this.send({ schema: serviceEnvelopeSchema, ...operation }, options);
    return { service: value.result, requestId };
  }

  /** Attempts and retries, each through the budget, all bounded by the caller's deadline. */
  private async send<T>(operation: Operation<T>, options: CallOptions) {
    const { deadline, signal } = options;
    const started = this.clock.now();
    // The spread comes last: V8 adds keys written after a spread one by one, on its slow path.
    const call: Call<T> = {
      options,
      url: checkedRequestUrl(this.apiUrl, operation.template, operation.path),
      started,
      floorMs: retry.attemptFloorMs(this.connection.timeouts.totalMs, (deadline ?? Infinity) - started),
      possiblyApplied: false,
      lastError: undefined,
      lastAnswer: undefined,
      counts: { rateLimited: 0, other: 0 },
      ...operation,
    };
    for (;;) {
      if (signal?.aborted) this.cancelled(call, signal);
      const result = await this.attempt(call);
      if (result.ok) return { value: result.value, requestId: result.requestId };
      const delayMs = this.retryDelayOrFail(call, result);
      await sleepUnlessAborted(this.clock, delayMs, signal).catch((error: unknown) => {
        if (signal?.aborted) this.cancelled(call, signal);
        throw error;
      });
    }
  }

  /** Within the command bound, after a budget slot, and before the deadline. */
  private async attempt<T>(call: Call<T>): Promise<Attempt<T>> {
    const { applyBudget, deadline, poll, signal } = call.options;
    if (applyBudget && applyBudget.used >= applyBudget.max)
      this.stop(call, ApiError, "Not sent", `${applyBudget.max} commands already sent in this converge`);
    // Checked before a budget slot is taken, and the budget grants none later than the floor
    // before the deadline: an attempt not made costs nothing. No budget, no slot.
    this.endIfTooLate(call, (deadline ?? Infinity) - this.clock.now());
    const sendBy = deadline === undefined ? undefined : deadline - call.floorMs;
    const slot = await this.budget?.take(sendBy, poll, signal).catch((error: unknown) => {
      if (error instanceof BudgetDeadlineError) this.budgetTooLate(call, deadline!, error.nextSlotAt);
      if (signal?.aborted) this.cancelled(call, signal);
      throw error;
    });
    this.stats.budgetWaitMs += slot?.waitedMs ?? 0;
    const remainingMs = (deadline ?? Infinity) - this.clock.now();
    // A slot granted is spent: its attempt goes unless the deadline passed while it was handed over.
    this.endIfTooLate(call, remainingMs, 0);
    this.stats.attempts++;
    const totalTimeoutMs = Math.min(this.connection.timeouts.totalMs, remainingMs);
    const result = await sendAttempt({ ...this.connection, totalTimeoutMs, signal, ...call });
    slot?.answered();
    this.stats.outcomes[result.label] = (this.stats.outcomes[result.label] ?? 0) + 1;
    const sent = result.ok || result.sent;
    if (applyBudget && sent && !REFUSAL.test(result.label)) applyBudget.used++;
    if (!result.ok) {
      call.lastError = result.error;
      if (result.outcome?.kind === "status") call.lastAnswer = result.error;
      // No definite answer, a server error or an unreadable 2xx: the server may have applied it.
      const refused = result.outcome?.kind === "status" && result.outcome.status < 500;
      if (sent && !refused) call.possiblyApplied = true;
    }
    return result;
  }

  /** The wait before the next attempt after `result`; throws its error when it is not retried. */
  private retryDelayOrFail(call: Call<unknown>, result: Extract<Attempt<unknown>, { ok: false }>): number {
    const { outcome, headers } = result;
    if (!outcome) this.fail(call, result.error);
    const now = this.clock.now();
    const policy = this.retryPolicy;
    // A server's date is wall-clock time: only the wall clock turns it into a wait.
    const serverDelayMs = retry.serverRequestedDelayMs(headers, wallNow(this.clock), policy.maxServerDelayMs);
    const rateLimited = retry.isRateLimited(outcome);
    // Every caller shares the key: nobody sends before the server's window resets, waiters included.
    if (rateLimited && this.budget) this.budget.blockUntil(now + (serverDelayMs ?? policy.baseDelayMs));
    const attempt = retry.countAttempt(call.counts, outcome);
    const delayMs = retry.retryDelayMs({ retry: attempt, policy, serverDelayMs, random: this.random });
    const { deadline } = call.options;
    const again = retry.shouldRetry({
      method: call.method,
      path: call.template,
      outcome,
      attempt,
      elapsedMs: now - call.started,
      nextDelayMs: delayMs,
      policy,
      remainingMs: deadline === undefined ? undefined : deadline - now,
    });
    if (!again) this.fail(call, result.error);
    this.stats.retries++;
    const count = rateLimited ? `${attempt} rate limited` : `attempt ${attempt + 1} of ${policy.maxAttempts}`;
    const seconds = (delayMs / 1000).toFixed(1);
    this.log(
      `${call.method} ${call.path}: ${retry.describeOutcome(outcome)}; retrying in ${seconds}s (${count})`,
    );
    return delayMs;
  }

  /**
   * Throws `error`, marked when an earlier attempt may have applied the change. One without an answer
   * also names the server's last answer: a call cut short after a 429 says the key was rate limited.
   */
  private fail(call: Call<unknown>, error: ApiError | ResponseValidationError): never {
    if (call.method !== "GET" && call.possiblyApplied) error.possiblyApplied = true;
    const answer = call.lastAnswer;
    if (answer && error instanceof ApiError && error.status === undefined)
      error.message = `${error.message}; the last answer before it: ${answer.message}`;
    throw error;
  }

  /** Ends a cancelled call between attempts, marked when an earlier attempt may have applied it. */
  private cancelled(call: Call<unknown>, signal: AbortSignal): never {
    this.fail(call, cancelledError(call.method, call.path, signal));
  }

  /** Ends a call whose budget slot leaves less than its floor before the deadline, or comes past it. */
  private budgetTooLate(call: Call<unknown>, deadline: number, nextSlotAt: number): never {
    if (nextSlotAt <= deadline)
      this.endIfTooLate(call, deadline - nextSlotAt, call.floorMs, " at the rate budget's next slot");
    // Worded against the call's deadline, not the earlier one the budget was given.
    this.stop(call, ApiTimeoutError, "Timed out", new BudgetDeadlineError(nextSlotAt, deadline).message);
  }

  /**
   * Ends the call, unsent, if `leftMs` is under `floorMs`, as a spent deadline ends it: callers (the
   * converger) tell a call cut short after a 429 or a 503 from one that only ran out of time.
   */
  private endIfTooLate(call: Call<unknown>, leftMs: number, floorMs = call.floorMs, when = ""): void {
    const why = retry.tooLittleTime(leftMs, floorMs, when);
    if (why !== undefined) this.stop(call, ApiTimeoutError, "Timed out", why);
  }

  /** Ends a call before an attempt: with its last attempt's error, or a new `ErrorClass` saying `what`. */
  private stop(call: Call<unknown>, ErrorClass: typeof ApiError, what: string, detail: string): never {
    const { method, path } = call;
    const message = `${what} (${method} ${path}): ${detail}`;
    this.fail(call, call.lastError ?? new ErrorClass({ status: undefined, message, method, path }));
  }
}

interface Call<T> extends Operation<T> {
  options: CallOptions;
  url: string;
  started: number;
  /** No attempt starts with less time than this left before the deadline (`attemptFloorMs`). */
  floorMs: number;
  /** Some attempt got no definite answer: the server may have applied the request. */
  possiblyApplied: boolean;
  lastError: ApiError | ResponseValidationError | undefined;
  /** The last error status the server answered with. */
  lastAnswer: ApiError | ResponseValidationError | undefined;
  counts: retry.AttemptCounts;
}
