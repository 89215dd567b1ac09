import { isUuid } from "../api/guards";
import { defaultOrganizationId } from "./config";
import { consoleLog, providerContext, readDeadline } from "./context";
import { describeService } from "./convergeTypes";
import { pickFields, requireValid } from "./inputs";
import { afterRead, lastCommandFromOutputs, mayPredate } from "./lastCommand";
import { isGone } from "./outcomes";
import { fieldSchemas, ID_FIELDS, outputsOf, withDefaults } from "./serviceRunState";
import { satisfies, targetOf } from "./stateTable";
import { samplesFromOutputs } from "./transitions";

/** Read (`pulumi refresh`) of ServiceRunState: one GET; a service that no longer exists drops the resource. */

type Props = Record<string, unknown>;

export async function read(id: string, props: Props): Promise<{ id: string; props: Props }> {
  // Object.assign, not a spread followed by properties: see outputsOf.
  const withIds = Object.assign({}, props, {
    serviceId: props.serviceId ?? id,
    organizationId: props.organizationId ?? defaultOrganizationId(),
  });
  // Read acts on the ids only; the options it carries over are checked where they are used.
  // Both ids are uuids (the test of the field rules, `uuidField`): the rules would pass them,
  // so they run only to name what is wrong. A refresh reads every resource of the stack.
  if (!isUuid(withIds.organizationId) || !isUuid(withIds.serviceId))
    requireValid("ServiceRunState read", withIds, pickFields(fieldSchemas(), ID_FIELDS));
  const inputs = withDefaults(withIds);
  const context = providerContext();
  const { client, clock, tuning } = context;
  const previous = lastCommandFromOutputs(props.lastCommand, clock.now());
  try {
    const { service } = await client.getService(inputs.organizationId, inputs.serviceId, {
      deadline: readDeadline(context),
    });
    // Stryker disable next-line StringLiteral: any state the table does not know shows the command alike, and never predates it
    const shown = service.state ?? "";
    // What was learned of its transitions, and the last command, stay: a refresh observes.
    const last = previous && afterRead(previous, shown);
    const outputs = outputsOf(inputs, service, samplesFromOutputs(props.transitionSeconds), last);
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
      // Stryker disable all: log wording, out of the mutation scope (stryker.config.mjs)
      consoleLog.info(
        `${describeService(service, inputs.serviceId)} shows ${shown}, which may predate the ` +
          `${previous.command} sent at ${outputs.lastCommand.sentAt}; keeping ${kept}`,
      );
      // Stryker restore all
      outputs.observedState = kept;
    }
    return { id, props: { ...outputs } };
  } catch (error) {
    if (isGone(error, ["service"])) {
      // Stryker disable all: log wording, out of the mutation scope (stryker.config.mjs)
      consoleLog.info(
        `service ${inputs.serviceId} no longer exists; removing its ServiceRunState from the stack`,
      );
      // Stryker restore all
      return { id: "", props: {} };
    }
    throw error;
  }
}
