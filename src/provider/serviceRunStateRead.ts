import { defaultOrganizationId } from "./config";
import { consoleLog, providerContext, readDeadline } from "./context";
import { pickFields, requireValid } from "./inputs";
import { isGone } from "./outcomes";
import { fieldSchemas, ID_FIELDS, outputsOf, withDefaults } from "./serviceRunState";
import { samplesFromOutputs } from "./transitions";

/** Read (`pulumi refresh`) of ServiceRunState: one GET; a service that no longer exists drops the resource. */

type Props = Record<string, unknown>;

export async function read(id: string, props: Props): Promise<{ id: string; props: Props }> {
  const withIds = {
    ...props,
    serviceId: props.serviceId ?? id,
    organizationId: props.organizationId ?? defaultOrganizationId(),
  };
  // Read acts on the ids only; the options it carries over are checked where they are used.
  requireValid("ServiceRunState read", withIds, pickFields(fieldSchemas(), ID_FIELDS));
  const inputs = withDefaults(withIds);
  const { client } = providerContext();
  try {
    const { service } = await client.getService(inputs.organizationId, inputs.serviceId, {
      deadline: readDeadline(),
    });
    // What was learned of its transitions stays: a refresh observes, it does not forget.
    return { id, props: { ...outputsOf(inputs, service, samplesFromOutputs(props.transitionSeconds)) } };
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
