import { systemClock } from "../api/clock";
import { converge, ConvergeError } from "./converge";
import { providerContext } from "./context";
import { lastCommandFromOutputs } from "./lastCommand";
import { resourceInitError } from "./outcomes";
import { requireSameService } from "./resourceId";
import { keptOutputs, outputsOf, type ServiceRunStateOutputs } from "./outputs";
import { inputsOf, type ServiceRunStateInputs } from "./serviceRunStateInputs";
import { satisfies } from "./stateTable";

/** Create and update of ServiceRunState: both converge the service to the desired state. */

type Props = Record<string, unknown>;

/**
 * Runs the converger; on failure after an accepted command, or at the deadline of a wait on a
 * warehouse's other members, records the resource with what it saw. `recorded` is
 * `lastCommand` from the old outputs, if any: kept until this converge sends a command.
 */
async function convergeToOutputs(
  inputs: ServiceRunStateInputs,
  props: Props,
  recorded: unknown,
): Promise<ServiceRunStateOutputs> {
  const context = providerContext();
  try {
    const result = await converge(
      {
        organizationId: inputs.organizationId,
        serviceId: inputs.serviceId,
        desired: inputs.state,
        timeoutMs: inputs.timeoutSeconds * 1000,
        waitForState: inputs.waitForState,
        lastCommand: lastCommandFromOutputs(recorded, context.clock),
      },
      context,
    );
    return outputsOf(inputs, result.service, result.lastCommand);
  } catch (error) {
    if (!(error instanceof ConvergeError && (error.commandAccepted || error.warehouseId))) throw error;
    // A command is accepted, and a warehouse waited on, only after a GET showed the service: `error.service` is set.
    const observed = outputsOf(inputs, error.service ?? {}, error.lastCommand);
    const why = error.commandAccepted ? "The command was accepted" : "Nothing was changed";
    throw resourceInitError(
      `${error.message} ${why}: the resource is recorded and the next \`pulumi up\` ` +
        `carries on from the service's state then.`,
      inputs.serviceId,
      { ...observed, __provider: props.__provider },
    );
  }
}

export async function create(props: Props): Promise<{ id: string; outs: ServiceRunStateOutputs }> {
  const inputs = inputsOf(props, "create");
  return { id: inputs.serviceId, outs: await convergeToOutputs(inputs, props, undefined) };
}

export async function update(
  id: string,
  olds: Props,
  news: Props,
): Promise<{ outs: ServiceRunStateOutputs }> {
  const inputs = inputsOf(news, "update");
  requireSameService("ServiceRunState update", id, inputs.serviceId);
  if (olds.state === inputs.state && satisfies(olds.observedState as string | undefined, inputs.state)) {
    // Only options changed: no API call (nor configuration) needed, so the system clock is its clock.
    const lastCommand = lastCommandFromOutputs(olds.lastCommand, systemClock);
    return { outs: keptOutputs(inputs, olds, lastCommand) };
  }
  return { outs: await convergeToOutputs(inputs, news, olds.lastCommand) };
}
