import { cancelledDetail, sleepUnlessAborted } from "../api/abort";
import { isServiceCommand } from "../api/client";
import { ApiTimeoutError, ConflictError, InvalidInputError } from "../api/errors";
import type { ApplyBudget, ServiceCommand } from "../api/options";
import type { PollHint } from "../api/pollOrder";
import type { Service } from "../api/schemas";
import { ConvergeError, describeService, MIN_POLL_MS, seconds } from "./convergeTypes";
import type { ConvergeDeps, ConvergeRequest, InFlight, PatchResult } from "./convergeTypes";
import { afterRead, mayPredate, sentNow } from "./lastCommand";
import { converging } from "./progress";
import { decide, type Decision } from "./stateTable";
import { warehouseRefusal, warehouseTimeoutNote, type WarehouseWait } from "./warehouse";

export * from "./convergeTypes";

type Step = Decision | { action: "wait"; reason: "unseen-command" };

/** Brings a service to the desired run state: sends start/stop only when the state table says so, then polls. */
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
  private inFlight: InFlight | undefined;
  /** A command is sent again for nothing having moved once at most. */
  private resent = false;
  /** The last command that may have been applied, for the outputs. */
  private recorded = this.request.lastCommand;
  /** The command recorded before this converge while a GET may not show it yet. */
  private unseen = this.request.lastCommand;
  private warehouse: WarehouseWait | undefined;
  private lastStep: Step | undefined;
  private lastProgressAt = this.started;
  /** When a read or a command's answer last showed the service. */
  private lastSeenAt = this.started;
  /** Marks a GET as a poll, which the rate budget serves after commands and first reads (src/api/pollOrder.ts). */
  private readonly pollHint: PollHint = {
    waitedMs: () => this.deps.clock.now() - (this.inFlight?.at ?? this.started),
    unseenMs: () => this.deps.clock.now() - this.lastSeenAt,
  };

  async run() {
    let observed = await this.read();
    for (;;) {
      this.service = observed;
      const state = observed.state ?? "";
      const step = this.nextStep(state);
      if (step.action === "satisfied") {
        if (step.warning) this.deps.log.warn(converging.warning(this.label(), step.warning));
        const elapsedMs = this.deps.clock.now() - this.started;
        if (this.commands.length) this.deps.log.info(converging.reached(this.label(), state, elapsedMs));
        return this.result(observed);
      }
      if (step.action === "fail") return this.fail("terminal", `${this.label()}: ${step.reason}`);
      if (step.action === "wait" && step.reason === "transition" && !this.request.waitForState)
        return this.result(observed);
      const command = isServiceCommand(step.action) ? step.action : undefined;
      const next = command && this.sendOrLook(command, state);
      if (next === "flapping") {
        const why = `went back to ${state} after ${this.applyBudget.used} commands; something else is changing its state`;
        return this.fail("flapping", `${this.label()} ${why}. Stopping here so as not to fight it.`);
      }
      const answer = command && next === "send" ? await this.send(command, state) : undefined;
      if (answer && !this.request.waitForState) return this.result(answer);
      // The PATCH answer is a fresh look at the service: it counts as a poll.
      observed = answer ?? (await this.poll(state));
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

  /** Send the first command, one after a lost answer or a flip back, or the one re-send; else look again. */
  private sendOrLook(command: ServiceCommand, state: string): "send" | "flapping" | undefined {
    // A re-send after a warehouse's refusal this late could not answer before the deadline, leaving
    // unknown whether it applied: the last look ends the wait instead.
    if (this.warehouse && this.deps.clock.now() >= this.lastPollAt) return undefined;
    const sent = this.inFlight;
    if (!sent) return "send";
    const canSend = this.applyBudget.used < this.applyBudget.max;
    // After lost answers with the bound spent, keep looking until the deadline; after a flip back, fail.
    if (sent.moved || !this.commands.length) return canSend ? "send" : sent.moved ? "flapping" : undefined;
    const sinceMs = this.deps.clock.now() - sent.at;
    if (this.resent || !canSend || sinceMs < this.deps.tuning.commandGraceMs) return undefined;
    // Nothing moved for a whole grace period: the command may have been lost. Once.
    this.resent = true;
    this.deps.log.info(converging.resending(this.label(), state, sinceMs, command));
    return "send";
  }

  /** The service as the PATCH's answer shows it, if it was accepted. */
  private async send(command: ServiceCommand, state: string): Promise<Service | undefined> {
    const { log, tuning } = this.deps;
    const result = await this.patch(command);
    switch (result.outcome) {
      case "accepted":
        this.commands.push(command);
        log.info(converging.sent(this.label(), command, state, this.request.desired));
        this.sentFrom(command, state);
        this.warehouse = undefined;
        return result.service;
      case "lost":
        this.sentFrom(command, state).lost =
          ` after ${this.applyBudget.used} ${command} command(s) whose answers were lost (last: ${result.why})`;
        log.info(converging.answerLost(this.label(), command, result.why));
        return undefined;
      case "refused":
        log.info(converging.refused(this.label(), command, result.why));
        return undefined;
      case "warehouse":
        if (!this.warehouse) log.info(converging.warehouse(this.label(), result.wait, tuning));
        this.warehouse = result.wait;
        return undefined;
    }
  }

  /** A failure the loop cannot carry on from ends the converge. */
  private async patch(command: ServiceCommand): Promise<PatchResult> {
    const { client, clock, signal } = this.deps;
    const { organizationId: org, serviceId } = this.request;
    const options = { deadline: this.deadline, applyBudget: this.applyBudget, signal };
    try {
      const { service } = await client.changeServiceState(org, serviceId, command, options);
      return { outcome: "accepted", service };
    } catch (error) {
      // The client marks a failure after which the server may have applied it (no answer, 5xx, unreadable 2xx).
      const applied = (error as { possiblyApplied?: boolean }).possiblyApplied === true;
      if (applied) {
        this.recorded = sentNow(command, clock);
        this.inFlight ??= { command, from: undefined, at: this.started, moved: false };
      }
      if (signal?.aborted) return this.failed(error);
      const wait = warehouseRefusal(error, this.service, command, this.warehouse);
      if (wait) return { outcome: "warehouse", wait };
      if (error instanceof ConflictError) return { outcome: "refused", why: error.serverMessage };
      if (!applied || this.outOfTime(error)) return this.failed(error);
      return { outcome: "lost", why: (error as Error).message };
    }
  }

  /** Records `command`, accepted or its answer lost, as the one in flight. */
  private sentFrom(command: ServiceCommand, state: string): InFlight {
    this.lastSeenAt = this.deps.clock.now();
    this.recorded = sentNow(command, this.deps.clock);
    return (this.inFlight = { command, from: state, at: this.lastSeenAt, moved: false });
  }

  /** Waits for the next poll (or times out after the last one), then polls. */
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
    if (this.inFlight && observed.state !== this.inFlight.from) this.inFlight.moved = true;
    return observed;
  }

  /** A constant interval; sooner when a grace period ends first; never past the last poll's time. */
  private waitBeforePoll(state: string, now: number): number {
    const { pollEveryMs, commandGraceMs } = this.deps.tuning;
    const sent = this.commands.length && !this.resent ? this.inFlight! : undefined;
    let pollAt = now + pollEveryMs;
    if (sent && !sent.moved && state === sent.from) pollAt = Math.min(pollAt, sent.at + commandGraceMs);
    if (this.unseen) pollAt = Math.min(pollAt, this.unseen.atMs + commandGraceMs);
    const waitMs = Math.max(MIN_POLL_MS, pollAt - now);
    return Math.max(0, Math.min(waitMs, this.lastPollAt - now));
  }

  private async read(poll?: PollHint): Promise<Service> {
    const { organizationId, serviceId } = this.request;
    const options = { deadline: this.deadline, poll, signal: this.deps.signal };
    const { service } = await this.deps.client
      .getService(organizationId, serviceId, options)
      .catch((error: unknown) => this.failed(error));
    if (this.recorded) this.recorded = afterRead(this.recorded, service.state ?? "");
    this.lastSeenAt = this.deps.clock.now();
    return service;
  }

  /** A request's failure that ends the converge: cancelled, out of time, or the API's failure. */
  private failed(error: unknown): never {
    if (this.deps.signal?.aborted) return this.cancelled(error);
    if (this.outOfTime(error)) return this.timedOut(error);
    return this.fail("api", (error as Error).message, error);
  }

  /** Out of time inside the client where no further poll would fit: the converge's timeout. */
  private outOfTime(error: unknown): boolean {
    const lastPollWindow = this.deadline - this.deps.tuning.pollEveryMs;
    return error instanceof ApiTimeoutError && this.deps.clock.now() >= lastPollWindow && !!this.service;
  }

  /** The service as last shown, the commands accepted in order, the last one sent. */
  private result(shown: Service) {
    return { service: shown, commands: this.commands, ...(this.recorded && { lastCommand: this.recorded }) };
  }

  private label(): string {
    return describeService(this.service, this.request.serviceId);
  }

  /** For a failure's message: the commands accepted, else those whose answers were lost. */
  private sentSoFar(): string {
    const accepted = this.commands.length && ` after sending ${this.commands.join(", then ")}`;
    return accepted || (this.inFlight?.lost ?? "");
  }

  /** What it waited for, sent and saw last. Called only after a GET showed the service. */
  private timedOut(cause?: unknown): never {
    const now = this.deps.clock.now();
    const waitReason = this.lastStep?.action === "wait" ? this.lastStep.reason : undefined;
    const note =
      waitReason === "unknown"
        ? " (a state this provider does not know)"
        : waitReason === "unseen-command"
          ? ` (or so a GET shows, which may predate the ${this.unseen!.command} sent ${seconds(now - this.unseen!.atMs)} before)`
          : "";
    const message =
      `Timed out after ${seconds(now - this.started)} waiting for ${this.label()} to be ${this.request.desired}` +
      `${this.sentSoFar()}: it is ${this.service!.state || "in no reported state"}${note}` +
      `${this.warehouse ? warehouseTimeoutNote(this.warehouse) : ""}. Raise timeoutSeconds if it needs longer.`;
    return this.fail("timeout", message, cause);
  }

  /** What it waited for, sent or may have, and saw last. */
  private cancelled(cause: unknown): never {
    const { clock, signal } = this.deps;
    const unanswered = this.inFlight ? ` after a ${this.inFlight.command} whose answer never came` : "";
    const seen = this.service
      ? `: it was ${this.service.state || "in no reported state"} when last seen`
      : "";
    const message =
      `Cancelled after ${seconds(clock.now() - this.started)} waiting for ${this.label()} to be ` +
      `${this.request.desired}${this.sentSoFar() || unanswered}${seen} (${cancelledDetail(signal!)}).`;
    return this.fail("cancelled", message, cause);
  }

  private fail(kind: ConvergeError["kind"], message: string, cause?: unknown): never {
    throw new ConvergeError({
      kind,
      message,
      commandAccepted: this.inFlight !== undefined,
      commandAnswered: this.commands.length > 0,
      service: this.service,
      lastCommand: this.recorded,
      warehouseId: kind === "timeout" ? this.warehouse?.warehouseId : undefined,
      cause,
    });
  }
}
