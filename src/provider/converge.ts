import type { ApplyBudget, CallOptions, ServiceCommand } from "../api/client";
import { ApiError, ApiTimeoutError, ConflictError, ResponseValidationError } from "../api/errors";
import type { Service } from "../api/schemas";
import {
  doneLikelihood,
  estimateTransition,
  nextPollAt,
  observedDuration,
  type TransitionEstimate,
} from "./schedule";
import { afterRead, mayPredate } from "./lastCommand";
import { decide, type Decision } from "./stateTable";
import { emptySamples, learn, type Direction } from "./transitions";
import { MIN_POLL_MS } from "./tuning";
import {
  ConvergeError,
  describeService,
  type ConvergeDeps,
  type ConvergeRequest,
  type ConvergeResult,
} from "./convergeTypes";

export { DEFAULT_TUNING, MIN_POLL_MS, scaleTuning, type ConvergeTuning } from "./tuning";
export * from "./convergeTypes";

/** What the loop does next: the state table's decision, or wait out a read that may be stale. */
type Step = Decision | { action: "wait"; reason: "unseen-command" };

/** `45s`, or `0.5s` below ten seconds (short timeouts would otherwise read as 0s or 1s). */
function seconds(ms: number): string {
  return ms < 10_000 ? `${Number((ms / 1000).toFixed(1))}s` : `${Math.round(ms / 1000)}s`;
}

/**
 * Brings a service to the desired run state: reads it, sends start/stop only when the state
 * table says so, never against a transition in progress, and waits until it is there: guided by
 * how long such a transition took before (see `schedule.ts`), bounded by the deadline, with a
 * last poll just before it, every poll through the rate budget as a poll (after commands and
 * first reads, most-likely-done first).
 */
export async function converge(request: ConvergeRequest, deps: ConvergeDeps): Promise<ConvergeResult> {
  const { client, clock, log, tuning } = deps;
  const { organizationId, serviceId, desired } = request;
  if (!Number.isFinite(request.timeoutMs) || request.timeoutMs <= 0) {
    throw new TypeError(`the timeout must be a positive number of ms, got ${request.timeoutMs}`);
  }
  const started = clock.now();
  const deadline = started + request.timeoutMs;
  // The last poll happens this long before the deadline, so that it can still answer in time.
  const finalPollReserveMs = Math.min(1_000, request.timeoutMs * 0.05);
  const commands: ServiceCommand[] = [];
  const applyBudget: ApplyBudget = { used: 0, max: tuning.maxCommands };
  let commandMaybeApplied = false; // a PATCH whose answer was lost or unreadable
  let calls = 0;
  let service: Service | undefined;
  const prior = deps.prior ?? emptySamples();
  const history = request.history ?? emptySamples();
  // The last command's direction and what was expected of it; the last answer that showed it going on.
  let direction: Direction | undefined;
  let estimate: TransitionEstimate | undefined;
  let lastPendingAt = 0;
  let lastProgressAt = started;
  let resent = false;
  // What the service looked like when the last command was sent, and whether a GET has shown
  // anything else since (a GET may show the old state for a while after a command).
  let stateAtCommand: string | undefined;
  let lastCommandAt = 0;
  // Stryker disable next-line BooleanLiteral: read only after a command was sent (which resets it) or may have applied (the other disjunct already holds then)
  let movedSinceCommand = false;
  let lastDecision: Step | undefined;
  // The last command that may have been applied, for the outputs: the one recorded before this
  // converge until it sends its own. And the one recorded before, while a GET may not show it yet
  // (then the state shown proves nothing: neither satisfied nor a reason for a command).
  let recorded = request.lastCommand;
  let unseen = request.lastCommand;

  const fail = (kind: ConvergeError["kind"], message: string, cause?: unknown): never => {
    throw new ConvergeError({
      kind,
      message,
      commandAccepted: commands.length > 0 || commandMaybeApplied,
      service,
      lastCommand: recorded,
      cause,
    });
  };
  const timedOut = (cause?: unknown): never => {
    const now = clock.now();
    const label = describeService(service ?? {}, serviceId);
    const sentText = commands.length ? ` after sending ${commands.join(", then ")}` : "";
    // Stryker disable next-line OptionalChaining: a timeout comes only after a GET showed the service
    const state = service?.state;
    const reason = lastDecision?.action === "wait" ? lastDecision.reason : undefined;
    const unknown =
      reason === "unknown"
        ? " (a state this provider does not know)"
        : reason === "unseen-command"
          ? ` (or so a GET shows, which may predate the ${unseen!.command} sent ${seconds(now - unseen!.atMs)} before)`
          : "";
    return fail(
      "timeout",
      `Timed out after ${seconds(now - started)} waiting for ${label} to be ${desired}${sentText}: ` +
        `it is ${state || "in no reported state"}${unknown}. Raise timeoutSeconds if it needs longer.`,
      cause,
    );
  };
  const call = async <T>(what: () => Promise<T>, command?: ServiceCommand): Promise<T> => {
    calls++;
    try {
      return await what();
    } catch (error) {
      if ((error instanceof ApiError || error instanceof ResponseValidationError) && error.possiblyApplied) {
        commandMaybeApplied = true;
        if (command) recorded = { command, atMs: clock.now(), seen: false };
      }
      if (error instanceof ConflictError) throw error;
      // The deadline ran out inside the client (budget wait or last attempt): a converge timeout.
      if (error instanceof ApiTimeoutError && clock.now() >= deadline - finalPollReserveMs && service) {
        return timedOut(error);
      }
      return fail("api", (error as Error).message, error);
    }
  };

  const result = (shown: Service): ConvergeResult => ({
    service: shown,
    commands,
    commandsSent: applyBudget.used,
    calls,
    ...(recorded && { lastCommand: recorded }),
  });
  const look = async (options: CallOptions): Promise<Service> => {
    const shown = (await call(() => client.getService(organizationId, serviceId, options))).service;
    // Stryker disable next-line StringLiteral: any state the table does not know shows the command alike
    if (recorded) recorded = afterRead(recorded, shown.state ?? "");
    return shown;
  };
  let observed = await look({ deadline });
  for (;;) {
    service = observed;
    // Stryker disable next-line StringLiteral: any state the table does not know means wait; a command is never sent from it
    const state = observed.state ?? "";
    const now = clock.now();
    const label = describeService(observed, serviceId);
    // The earlier command stops mattering once a GET shows a state it is not sent from, or its
    // grace period is over.
    if (!mayPredate(state, unseen, now, tuning.commandGraceMs)) unseen = undefined;
    const decision: Step = unseen ? { action: "wait", reason: "unseen-command" } : decide(state, desired);
    // Stryker disable next-line all: decides only whether the log line below is written (log wording, out of the mutation scope)
    if (unseen && lastDecision === undefined)
      // Stryker disable next-line all: log wording, out of the mutation scope (stryker.config.mjs)
      log.info(`${label} shows ${state}, which may predate the ${unseen.command} sent; looking again`);
    lastDecision = decision;

    if (decision.action === "satisfied") {
      // Stryker disable all: log wording, out of the mutation scope (stryker.config.mjs)
      if (decision.warning) log.warn(`${label}: ${decision.warning}`);
      if (commands.length) log.info(`${label} is ${state} (${seconds(now - started)})`);
      // Stryker restore all
      const done = result(observed);
      // One command, seen through to its end: a sample of how long this direction takes.
      if (direction && commands.length === 1 && !commandMaybeApplied && lastPendingAt >= lastCommandAt) {
        const ms = observedDuration(lastPendingAt - lastCommandAt, now - lastCommandAt, estimate);
        learn(prior, direction, ms);
        done.transition = { direction, ms };
      }
      return done;
    }
    if (commands.length) lastPendingAt = now;
    if (decision.action === "fail") return fail("terminal", `${label}: ${decision.reason}`);

    let command: ServiceCommand | undefined;
    if (decision.action === "start" || decision.action === "stop") {
      const canSend = applyBudget.used < applyBudget.max;
      if (commands.length === 0 && !commandMaybeApplied) command = decision.action;
      else if (movedSinceCommand || (commands.length === 0 && commandMaybeApplied)) {
        // It moved after our command and came back (something else is changing it), or our
        // first command's answer was lost: send again, within the bound.
        if (!canSend) {
          return fail(
            "flapping",
            `${label} went back to ${state} after ${applyBudget.used} commands; something else is changing ` +
              `its state. Stopping here so as not to fight it.`,
          );
        }
        command = decision.action;
      } else if (!resent && canSend && now - lastCommandAt >= tuning.commandGraceMs) {
        // Nothing moved for a whole grace period: the command may have been lost. Once.
        resent = true;
        command = decision.action;
        // Stryker disable all: log wording, out of the mutation scope (stryker.config.mjs)
        log.info(
          `${label} still ${state} ${seconds(now - lastCommandAt)} after ${decision.action}; sending it again`,
        );
        // Stryker restore all
      }
    } else if (!request.waitForState && decision.reason === "transition") {
      // Already on its way and the caller does not want to wait.
      return result(observed);
    }

    if (command) {
      const sent = command;
      try {
        const answer = await call(
          () => client.changeServiceState(organizationId, serviceId, sent, { deadline, applyBudget }),
          sent,
        );
        commands.push(sent);
        // Stryker disable next-line all: log wording, out of the mutation scope (stryker.config.mjs)
        log.info(`${label}: sent ${sent} (was ${state}); target ${desired}`);
        stateAtCommand = state;
        lastCommandAt = clock.now();
        recorded = { command: sent, atMs: lastCommandAt, seen: false };
        movedSinceCommand = false;
        direction = sent;
        estimate = estimateTransition(history[sent], prior[sent]);
        if (!request.waitForState) return result(answer.service);
        // The PATCH answer is a fresh look at the service: it counts as a poll.
        observed = answer.service;
        continue;
      } catch (error) {
        if (!(error instanceof ConflictError)) throw error;
        // A transition GET did not show yet is in progress: wait for it, then act.
        // Stryker disable next-line all: log wording, out of the mutation scope (stryker.config.mjs)
        log.info(`${label}: ${sent} refused for now (${error.serverMessage ?? "conflict"}); waiting`);
      }
    }

    const afterWait = clock.now();
    if (afterWait >= deadline - finalPollReserveMs) return timedOut();
    if (afterWait - lastProgressAt >= tuning.progressEveryMs) {
      lastProgressAt = afterWait;
      // Stryker disable next-line all: log wording, out of the mutation scope (stryker.config.mjs)
      log.info(`${label}: ${state}, target ${desired}, ${seconds(afterWait - started)} elapsed`);
    }

    // Polls are timed from the last command (with what is known of its length), or from the
    // start when waiting out a transition nobody here commanded.
    const reference = commands.length ? lastCommandAt : started;
    const expected = commands.length ? estimate : undefined;
    let pollAt = reference + nextPollAt(afterWait - reference, expected, tuning);
    if (commands.length && !resent && !movedSinceCommand && state === stateAtCommand) {
      // Still showing the state the command was sent in: look again by the grace period's end.
      pollAt = Math.min(pollAt, lastCommandAt + tuning.commandGraceMs);
    }
    // A read that may be stale: look again by the end of the earlier command's grace period.
    if (unseen) pollAt = Math.min(pollAt, unseen.atMs + tuning.commandGraceMs);
    const waitMs = Math.max(MIN_POLL_MS, pollAt - afterWait);
    await clock.sleep(Math.max(0, Math.min(waitMs, deadline - finalPollReserveMs - afterWait)));
    const poll = { likelihood: () => doneLikelihood(clock.now() - reference, expected) };
    observed = await look({ deadline, poll });
    if ((commands.length || commandMaybeApplied) && observed.state !== stateAtCommand)
      movedSinceCommand = true;
  }
}
