import { cancelledDetail, sleepUnlessAborted } from "../api/abort";
import type { ApplyBudget, ServiceCommand } from "../api/options";
import type { PollHint } from "../api/pollOrder";
import {
  ApiError,
  ApiTimeoutError,
  ConflictError,
  InvalidInputError,
  ResponseValidationError,
} from "../api/errors";
import type { Service } from "../api/schemas";
import { ConvergeError, describeService, MIN_POLL_MS, seconds } from "./convergeTypes";
import type { ConvergeDeps, ConvergeRequest } from "./convergeTypes";
import { afterRead, mayPredate, sentNow } from "./lastCommand";
import { converging } from "./progress";
import { decide, type Decision } from "./stateTable";
import { warehouseRefusal, warehouseTimeoutNote, type WarehouseWait } from "./warehouse";

export * from "./convergeTypes";

type Step = Decision | { action: "wait"; reason: "unseen-command" };

/**
 * Brings a service to the desired run state: reads it, sends start/stop only when the state table
 * says so, then polls a constant interval after each answer, with a last poll just before the deadline.
 */
export async function converge(request: ConvergeRequest, deps: ConvergeDeps) {
  if (!Number.isFinite(request.timeoutMs) || request.timeoutMs <= 0)
    throw new InvalidInputError(`the timeout must be a positive number of ms, got ${request.timeoutMs}`);
  return new Convergence(request, deps).run();
}

class Convergence {
  constructor(
    private readonly request: ConvergeRequest,
    private readonly deps: ConvergeDeps,
  ) {}

  private readonly started = this.deps.clock.now();
  private readonly deadline = this.started + this.request.timeoutMs;
  /** Early enough before the deadline that the last poll can still answer in time. */
  private readonly lastPollAt = this.deadline - Math.min(1_000, this.request.timeoutMs * 0.05);
  private readonly commands: ServiceCommand[] = [];
  private readonly applyBudget: ApplyBudget = { used: 0, max: this.deps.tuning.maxCommands };
  private service: Service | undefined;
  private commandMaybeApplied = false;
  /** What the timeout's message says of commands whose answers were lost, if no other was accepted. */
  private lostAnswers = "";
  /** The last command that may have been applied, for the outputs. */
  private recorded = this.request.lastCommand;
  /** The command recorded before this converge while a GET may not show it yet: such a read proves nothing. */
  private unseen = this.request.lastCommand;
  private lastCommandAt = 0;
  private stateAtCommand: string | undefined;
  private movedSinceCommand = false;
  private resent = false;
  private lastStep: Step | undefined;
  private lastProgressAt = this.started;
  /** When the wait began: the last command's answer, else the converge's start. */
  private waitFrom = this.started;
  /** When a read or a command's answer last showed the service. */
  private lastSeenAt = this.started;
  /**
   * Marks a GET as a poll for the rate budget, which serves it after commands and first reads and,
   * when slots are scarce, by how long this service has been on its way (src/api/pollOrder.ts).
   */
  private readonly pollHint: PollHint = {
    waitedMs: () => this.deps.clock.now() - this.waitFrom,
    unseenMs: () => this.deps.clock.now() - this.lastSeenAt,
  };
  private warehouse: WarehouseWait | undefined;

  async run() {
    let observed = await this.read();
    for (;;) {
      this.service = observed;
      const state = observed.state ?? "";
      const step = this.nextStep(state);
      if (step.action === "satisfied") return this.satisfied(observed, step.warning);
      if (step.action === "fail") return this.fail("terminal", `${this.label()}: ${step.reason}`);
      if (step.action === "wait" && step.reason === "transition" && !this.request.waitForState)
        return this.result(observed);
      const command = this.commandToSend(step, state);
      const answer = command && (await this.send(command, state));
      if (answer && !this.request.waitForState) return this.result(answer);
      // The PATCH answer is a fresh look at the service: it counts as a poll.
      observed = answer || (await this.poll(state));
    }
  }

  /** The state table's decision, unless the state shown may predate the command recorded before. */
  private nextStep(state: string): Step {
    const { clock, log, tuning } = this.deps;
    if (!mayPredate(state, this.unseen, clock.now(), tuning.commandGraceMs)) this.unseen = undefined;
    const step: Step = this.unseen
      ? { action: "wait", reason: "unseen-command" }
      : decide(state, this.request.desired);
    if (this.unseen && this.lastStep === undefined)
      log.info(converging.mayPredate(this.label(), state, this.unseen.command));
    this.lastStep = step;
    return step;
  }

  private satisfied(observed: Service, warning: string | undefined) {
    const { clock, log } = this.deps;
    if (warning) log.warn(converging.warning(this.label(), warning));
    if (this.commands.length)
      log.info(converging.reached(this.label(), observed.state ?? "", clock.now() - this.started));
    return this.result(observed);
  }

  /** The first command, one after a lost answer or a flip back, or the one re-send; else none. */
  private commandToSend(step: Step, state: string): ServiceCommand | undefined {
    if (step.action !== "start" && step.action !== "stop") return undefined;
    // A re-send after a warehouse's refusal this late could not answer before the deadline, leaving
    // unknown whether it applied: the last look ends the wait instead.
    if (this.warehouse && this.deps.clock.now() >= this.lastPollAt) return undefined;
    const canSend = this.applyBudget.used < this.applyBudget.max;
    const sentNone = this.commands.length === 0;
    if (sentNone && !this.commandMaybeApplied) return step.action;
    // Our commands' answers were lost and the bound is spent: keep looking until the deadline.
    if (sentNone && !this.movedSinceCommand && !canSend) return undefined;
    if (this.movedSinceCommand || sentNone) {
      if (canSend) return step.action;
      return this.fail(
        "flapping",
        `${this.label()} went back to ${state} after ${this.applyBudget.used} commands; something else is ` +
          `changing its state. Stopping here so as not to fight it.`,
      );
    }
    const sinceMs = this.deps.clock.now() - this.lastCommandAt;
    if (this.resent || !canSend || sinceMs < this.deps.tuning.commandGraceMs) return undefined;
    // Nothing moved for a whole grace period: the command may have been lost. Once.
    this.resent = true;
    this.deps.log.info(converging.resending(this.label(), state, sinceMs, step.action));
    return step.action;
  }

  /** The service as the PATCH answer shows it; undefined when it was refused or its answer lost. */
  private async send(command: ServiceCommand, state: string): Promise<Service | undefined> {
    const { client, log } = this.deps;
    const { organizationId, serviceId, desired } = this.request;
    const options = { deadline: this.deadline, applyBudget: this.applyBudget, signal: this.deps.signal };
    const patch = () => client.changeServiceState(organizationId, serviceId, command, options);
    try {
      const answer = await this.call(patch, command);
      this.commands.push(command);
      log.info(converging.sent(this.label(), command, state, desired));
      this.commandSentFrom(command, state);
      this.warehouse = undefined;
      return answer.service;
    } catch (error) {
      if (this.answerLost(error, command, state)) return undefined;
      // What `call` lets through: a 409, or a warehouse's refusal. Nothing was applied; look again.
      if (!(error instanceof ApiError)) throw error;
      if (error instanceof ConflictError && !this.warehouse)
        log.info(converging.refused(this.label(), command, error.serverMessage));
      return undefined;
    }
  }

  /** Whether the refusal is a warehouse's: then the loop sends the command again at the poll cadence. */
  private waitOnWarehouse(error: unknown, command: ServiceCommand): boolean {
    const wait = warehouseRefusal(error, this.service, command, this.warehouse);
    if (!wait) return false;
    if (!this.warehouse) this.deps.log.info(converging.warehouse(this.label(), wait, this.deps.tuning));
    this.warehouse = wait;
    return true;
  }

  private commandSentFrom(command: ServiceCommand, state: string): void {
    this.stateAtCommand = state;
    this.lastCommandAt = this.deps.clock.now();
    this.waitFrom = this.lastSeenAt = this.lastCommandAt;
    this.recorded = sentNow(command, this.deps.clock);
    this.movedSinceCommand = false;
  }

  /** A failure after which the command may have been applied (answer lost, 5xx): the polls find out. */
  private answerLost(error: unknown, command: ServiceCommand, state: string): boolean {
    const cause = error instanceof ConvergeError && error.kind === "api" ? error.cause : undefined;
    if (!(cause as { possiblyApplied?: boolean } | undefined)?.possiblyApplied) return false;
    this.commandSentFrom(command, state);
    const why = (cause as Error).message;
    this.lostAnswers = ` after ${this.applyBudget.used} ${command} command(s) whose answers were lost (last: ${why})`;
    this.deps.log.info(converging.answerLost(this.label(), command, why));
    return true;
  }

  /** Waits for the next poll (or times out when the last one is behind it), then polls. */
  private async poll(state: string): Promise<Service> {
    const { clock, log, tuning } = this.deps;
    const now = clock.now();
    if (now >= this.lastPollAt) return this.timedOut();
    if (now - this.lastProgressAt >= tuning.progressEveryMs) {
      this.lastProgressAt = now;
      log.info(converging.waiting(this.label(), state, this.request.desired, now - this.started));
    }
    await sleepUnlessAborted(clock, this.waitBeforePoll(state, now), this.deps.signal).catch(
      (error: unknown) => (this.deps.signal?.aborted ? this.cancelled(error) : Promise.reject(error)),
    );
    const observed = await this.read(this.pollHint);
    if ((this.commands.length || this.commandMaybeApplied) && observed.state !== this.stateAtCommand)
      this.movedSinceCommand = true;
    return observed;
  }

  /** A constant interval; sooner when a grace period ends first; never past the last poll's time. */
  private waitBeforePoll(state: string, now: number): number {
    const { pollEveryMs, commandGraceMs } = this.deps.tuning;
    let pollAt = now + pollEveryMs;
    if (this.commands.length && !this.resent && !this.movedSinceCommand && state === this.stateAtCommand)
      pollAt = Math.min(pollAt, this.lastCommandAt + commandGraceMs);
    if (this.unseen) pollAt = Math.min(pollAt, this.unseen.atMs + commandGraceMs);
    const waitMs = Math.max(MIN_POLL_MS, pollAt - now);
    return Math.max(0, Math.min(waitMs, this.lastPollAt - now));
  }

  private async read(poll?: PollHint): Promise<Service> {
    const { organizationId, serviceId } = this.request;
    const options = { deadline: this.deadline, poll, signal: this.deps.signal };
    const { service } = await this.call(() =>
      this.deps.client.getService(organizationId, serviceId, options),
    );
    if (this.recorded) this.recorded = afterRead(this.recorded, service.state ?? "");
    this.lastSeenAt = this.deps.clock.now();
    return service;
  }

  /** A request; its failure as a ConvergeError, noting a command that may have been applied. */
  private async call<T>(what: () => Promise<T>, command?: ServiceCommand): Promise<T> {
    try {
      return await what();
    } catch (error) {
      if ((error instanceof ApiError || error instanceof ResponseValidationError) && error.possiblyApplied) {
        this.commandMaybeApplied = true;
        if (command) this.recorded = sentNow(command, this.deps.clock);
      }
      if (this.deps.signal?.aborted) return this.cancelled(error);
      if ((command && this.waitOnWarehouse(error, command)) || error instanceof ConflictError) throw error;
      // Out of time inside the client where no further poll would fit: the converge's timeout.
      const lastPollWindow = this.deadline - this.deps.tuning.pollEveryMs;
      if (error instanceof ApiTimeoutError && this.deps.clock.now() >= lastPollWindow && this.service)
        return this.timedOut(error);
      return this.fail("api", (error as Error).message, error);
    }
  }

  /** What a converge returns: the service as last shown, the commands accepted in order, the last one sent. */
  private result(shown: Service) {
    return { service: shown, commands: this.commands, ...(this.recorded && { lastCommand: this.recorded }) };
  }

  private label(): string {
    return describeService(this.service, this.request.serviceId);
  }

  /** The timeout's error: what it waited for, sent and saw last. Called only after a GET showed the service. */
  private timedOut(cause?: unknown): never {
    const now = this.deps.clock.now();
    const sent = this.commands.length ? ` after sending ${this.commands.join(", then ")}` : this.lostAnswers;
    const waitReason = this.lastStep?.action === "wait" ? this.lastStep.reason : undefined;
    const note =
      waitReason === "unknown"
        ? " (a state this provider does not know)"
        : waitReason === "unseen-command"
          ? ` (or so a GET shows, which may predate the ${this.unseen!.command} sent ${seconds(now - this.unseen!.atMs)} before)`
          : "";
    const message =
      `Timed out after ${seconds(now - this.started)} waiting for ${this.label()} to be ${this.request.desired}` +
      `${sent}: it is ${this.service!.state || "in no reported state"}${note}` +
      `${this.warehouse ? warehouseTimeoutNote(this.warehouse) : ""}. Raise timeoutSeconds if it needs longer.`;
    return this.fail("timeout", message, cause);
  }

  /** The cancellation's error: what it waited for, what it sent or may have, and what it saw last. */
  private cancelled(cause: unknown): never {
    const { clock, signal } = this.deps;
    const lost =
      this.recorded && this.commandMaybeApplied
        ? ` after a ${this.recorded.command} whose answer never came`
        : "";
    const sent = this.commands.length
      ? ` after sending ${this.commands.join(", then ")}`
      : this.lostAnswers || lost;
    const seen = this.service
      ? `: it was ${this.service.state || "in no reported state"} when last seen`
      : "";
    const message =
      `Cancelled after ${seconds(clock.now() - this.started)} waiting for ${this.label()} to be ` +
      `${this.request.desired}${sent}${seen} (${cancelledDetail(signal!)}).`;
    return this.fail("cancelled", message, cause);
  }

  private fail(kind: ConvergeError["kind"], message: string, cause?: unknown): never {
    throw new ConvergeError({
      kind,
      message,
      commandAccepted: this.commands.length > 0 || this.commandMaybeApplied,
      service: this.service,
      lastCommand: this.recorded,
      warehouseId: kind === "timeout" ? this.warehouse?.warehouseId : undefined,
      cause,
    });
  }
}
