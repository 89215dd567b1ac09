import { isUuid } from "../api/guards";
import { defaultOrganizationId } from "../config";
import { providerContext, readDeadline } from "./context";
import { describeService } from "./convergeTypes";
import { pickFields, requireValid } from "./inputs";
import { afterRead, lastCommandFromOutputs, mayPredate } from "./lastCommand";
import { isGone } from "./outcomes";
import { requireSameService } from "./resourceId";
import { outputsOf } from "./outputs";
import { consoleLog, refreshing } from "./progress";
import { fieldSchemas, ID_FIELDS, withDefaults } from "./serviceRunStateInputs";
import { satisfies, targetOf } from "./stateTable";

/** Read (`pulumi refresh`) of ServiceRunState: one GET; a service that no longer exists drops the resource. */

type Props = Record<string, unknown>;

export async function read(id: string, props: Props): Promise<{ id: string; props: Props }> {
  const withIds = {
    ...props,
    serviceId: props.serviceId ?? id,
    organizationId: props.organizationId ?? defaultOrganizationId(),
  };
  // Read acts on the ids only; the options it carries over are checked where they are used.
  // The rules run only to name what is wrong: a refresh reads every resource of the stack.
  if (!isUuid(withIds.organizationId) || !isUuid(withIds.serviceId))
    requireValid("ServiceRunState read", withIds, pickFields(fieldSchemas(), ID_FIELDS));
  // Neither gone nor found: a refresh would rewrite the state after one side of it.
  requireSameService("ServiceRunState read", id, withIds.serviceId);
  const inputs = withDefaults(withIds);
  const { client, clock, tuning } = providerContext();
  const previous = lastCommandFromOutputs(props.lastCommand, clock);
  try {
    const { service } = await client.getService(inputs.organizationId, inputs.serviceId, {
      deadline: readDeadline(),
    });
    const shown = service.state ?? "";
    // The last command stays: a refresh observes.
    const outputs = outputsOf(inputs, service, previous && afterRead(previous, shown));
    const kept = props.observedState;
    if (
      previous !== undefined &&
      typeof kept === "string" &&
      kept !== "" &&
      mayPredate(shown, previous, clock.now(), tuning.commandGraceMs) &&
      !satisfies(kept, targetOf(previous.command))
    ) {
      // A state the last command was sent from, within its grace period, and no GET has shown
      // the command yet: perhaps a read from before it. The state recorded since (the PATCH's
      // answer, say `starting`) is kept; it does not satisfy the command's target, so the next
      // `pulumi up` looks again, under the same rule.
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
