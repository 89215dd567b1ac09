import { systemClock } from "../api/clock";
import type { Service } from "../api/schemas";
import { defaultOrganizationId } from "../config";
import { converge, ConvergeError, describeService } from "./converge";
import { providerContext, readDeadline } from "./context";
import { DEFAULT_ON_DESTROY, DEFAULT_TIMEOUT_SECONDS } from "./defaults";
import { pickFields, requireIdOfProperties, requireValid, type Props } from "./inputs";
import { afterRead, lastCommandFromOutputs, mayPredate } from "./lastCommand";
import { isGone, ResourceInitError, ResourceOperationError } from "./resourceErrors";
import { consoleLog, destroying, refreshing } from "./progress";
import { outputsOf, serviceRunStateSpec, type ServiceRunStateInputs } from "./serviceRunStateInputs";
import { validInputs, withDefaults } from "./spec";
import { satisfies, targetOf } from "./stateTable";

type ConvergeTarget = Omit<ServiceRunStateInputs, "onDestroy" | "deleteTimeoutSeconds">;

/** Runs the converger, which carries on from the command `recorded` in the outputs, if any. */
function convergeTo(target: ConvergeTarget, recorded: unknown) {
  const { organizationId, serviceId, state: desired, timeoutSeconds, waitForState } = target;
  const context = providerContext();
  const lastCommand = lastCommandFromOutputs(recorded, context.clock);
  const timeoutMs = timeoutSeconds * 1000;
  return converge({ organizationId, serviceId, desired, timeoutMs, waitForState, lastCommand }, context);
}

/**
 * Converges; a failure after a command that was or may have been applied, or a warehouse wait's
 * timeout, records the resource.
 */
async function convergeToOutputs(inputs: ServiceRunStateInputs, props: Props, recorded: unknown) {
  try {
    const result = await convergeTo(inputs, recorded);
    return outputsOf(inputs, result.service, result.lastCommand);
  } catch (error) {
    if (!(error instanceof ConvergeError && (error.commandAccepted || error.warehouseId))) throw error;
    const observed = outputsOf(inputs, error.service ?? {}, error.lastCommand);
    // Accepted only on a 2xx: a command whose answer was lost may or may not have been applied.
    const why = error.commandAnswered
      ? "The command was accepted"
      : error.commandAccepted
        ? "The command may have been applied"
        : "Nothing was changed";
    throw new ResourceInitError(
      `${error.message} ${why}: the resource is recorded and the next \`pulumi up\` ` +
        `carries on from the service's state then.`,
      inputs.serviceId,
      { ...observed, __provider: props.__provider },
    );
  }
}

export async function create(props: Props) {
  const inputs = validInputs(serviceRunStateSpec, "create", props);
  return { id: inputs.serviceId, outs: await convergeToOutputs(inputs, props, undefined) };
}

export async function update(id: string, olds: Props, news: Props) {
  const inputs = validInputs(serviceRunStateSpec, "update", news, id);
  if (olds.state === inputs.state && satisfies(olds.observedState as string | undefined, inputs.state)) {
    // Only options changed: no API call (nor configuration), so the system clock is its clock; the
    // outputs show the service as last observed (of hand-edited endpoints, the objects alone).
    const lastCommand = lastCommandFromOutputs(olds.lastCommand, systemClock);
    const { observedState: state, serviceName: name, databaseVersion, endpoints } = olds;
    const list = Array.isArray(endpoints) ? endpoints.filter((e) => typeof e === "object" && e !== null) : [];
    const seen = { state, name, databaseVersion, endpoints: list } as Service;
    return { outs: outputsOf(inputs, seen, lastCommand) };
  }
  return { outs: await convergeToOutputs(inputs, news, olds.lastCommand) };
}

/** The valid ids a refresh or a stop on destroy acts on (organization defaulted from config), matching `id`. */
function requireIds(operation: string, id: string, props: Props, detail = "") {
  const ids = { organizationId: props.organizationId ?? defaultOrganizationId(), serviceId: props.serviceId };
  const fields = pickFields(serviceRunStateSpec.fields(), Object.keys(ids));
  requireValid(`ServiceRunState ${operation}`, ids, fields);
  requireIdOfProperties(`ServiceRunState ${operation}${detail}`, id, ["service"], [ids.serviceId]);
  return ids as { organizationId: string; serviceId: string };
}

/** Refresh: one GET; a service that no longer exists drops the resource. */
export async function read(id: string, props: Props): Promise<{ id: string; props: Props }> {
  const ids = requireIds("read", id, { ...props, serviceId: props.serviceId ?? id });
  const inputs = withDefaults(serviceRunStateSpec, { ...props, ...ids });
  const { client, clock, tuning, signal } = providerContext();
  const previous = lastCommandFromOutputs(props.lastCommand, clock);
  try {
    const options = { deadline: readDeadline(), signal };
    const { service } = await client.getService(inputs.organizationId, inputs.serviceId, options);
    const shown = service.state ?? "";
    const outputs = outputsOf(inputs, service, previous && afterRead(previous, shown));
    const kept = props.observedState;
    if (
      previous !== undefined &&
      typeof kept === "string" &&
      kept !== "" &&
      mayPredate(shown, previous, clock.now(), tuning.commandGraceMs) &&
      !satisfies(kept, targetOf(previous.command))
    ) {
      // Perhaps a read from before the last command: the state recorded since is kept, and as it
      // does not satisfy the command's target, the next `pulumi up` looks again.
      const label = describeService(service, inputs.serviceId);
      consoleLog.info(
        refreshing.keptAfterStaleRead(label, shown, previous.command, outputs.lastCommand.sentAt, kept),
      );
      outputs.observedState = kept;
    }
    return { id, props: { ...outputs } };
  } catch (error) {
    if (!isGone(error, ["service"])) throw error;
    consoleLog.info(refreshing.serviceGone(inputs.serviceId));
    return { id: "", props: {} };
  }
}

/** A timeout from state, used only if check would accept it (state may be hand-edited). */
function validTimeout(value: unknown): number | undefined {
  return serviceRunStateSpec.fields().timeoutSeconds.schema.safeParse(value).success
    ? (value as number)
    : undefined;
}

/** Destroy: anything but exactly `onDestroy: "stop"` makes no API call; a failed stop keeps the resource. */
export async function remove(id: string, props: Props): Promise<void> {
  const serviceId = String(props.serviceId);
  const label = describeService({ name: props.serviceName as string | undefined }, serviceId);
  if (props.onDestroy !== "stop") {
    if (props.onDestroy !== undefined && props.onDestroy !== DEFAULT_ON_DESTROY)
      consoleLog.warn(destroying.unknownOnDestroy(label, props.onDestroy));
    const observed =
      typeof props.observedState === "string" && props.observedState ? props.observedState : "as it was";
    consoleLog.info(destroying.left(label, observed));
    return;
  }
  const timeoutSeconds =
    validTimeout(props.deleteTimeoutSeconds) ?? validTimeout(props.timeoutSeconds) ?? DEFAULT_TIMEOUT_SECONDS;
  const ids = requireIds("delete", id, props, ' (the stop of onDestroy: "stop")');
  // The last command goes along: right after a start, a stale `stopped` is no reason to call it done.
  // Started outside the try: a configuration error (thrown at once) is not a failed stop.
  const stop = { ...ids, state: "stopped" as const, timeoutSeconds, waitForState: true };
  const stopping = convergeTo(stop, props.lastCommand);
  try {
    const { service, commands } = await stopping;
    consoleLog.info(destroying.stopped(describeService(service, serviceId), commands.length > 0));
  } catch (error) {
    if (error instanceof ConvergeError && error.kind === "api" && isGone(error.cause, ["service"])) {
      consoleLog.info(destroying.serviceGone(label));
      return;
    }
    if (error instanceof ConvergeError && error.kind === "terminal") {
      // No command can stop it: keeping the resource would only block destroy for good.
      consoleLog.warn(destroying.terminal(label, error.service!.state));
      return;
    }
    throw new ResourceOperationError(
      `${(error as Error).message} Stopping on destroy (onDestroy: "stop", waiting at most ${timeoutSeconds}s: ` +
        `customTimeouts.delete / deleteTimeoutSeconds, else timeoutSeconds) failed: the resource stays in the ` +
        `stack; run \`pulumi destroy\` again to retry.`,
      { cause: error },
    );
  }
}
