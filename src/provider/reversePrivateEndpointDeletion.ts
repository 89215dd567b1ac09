import { AuthenticationError, PermissionDeniedError } from "../api/errors";
import { deadlineAfter, providerContext, readDeadline } from "./context";
import { pickFields, requireIdOfProperties, requireValid, type FieldSchemas, type Props } from "./inputs";
import { isGone, ResourceOperationError } from "./resourceErrors";
import { consoleLog, destroying, refreshing } from "./progress";
import { checkAndDiff, idOf, withDefaults } from "./spec";
import { reversePrivateEndpointDeletionSpec as spec } from "./specs/reversePrivateEndpointDeletion";

/* The provider side of ReversePrivateEndpointDeletion (its inputs: its spec): every method of its provider lands here. */

export const fieldSchemas = spec.fields;

/** Any id change is a replacement (the old endpoint is deleted); a timeout change an update with no API call. */
export const { check, diff } = checkAndDiff(spec);

/** The inputs, which are also the outputs; given the resource id, only when it names what they name. */
function inputsOf(props: Props, what: string, id?: string, fields: FieldSchemas = fieldSchemas()) {
  const operation = `ReversePrivateEndpointDeletion ${what}`;
  requireValid(operation, props, fields);
  const inputs = withDefaults(spec, props);
  if (id !== undefined) requireIdOfProperties(operation, id, spec.id.labels, idParts(inputs));
  return inputs;
}

/** The parts of the resource id, which are joined by "/": organization, service, endpoint. */
const idParts = (inputs: Props) => spec.id.fields.map((field) => inputs[field]);

/** Adopts the endpoint: verifies that the service exists; deletes nothing. */
export async function create(props: Props) {
  const inputs = inputsOf(props, "create");
  const { client, signal } = providerContext();
  try {
    await client.getService(inputs.organizationId, inputs.serviceId, { deadline: readDeadline(), signal });
  } catch (error) {
    if (isGone(error, ["service"])) {
      throw new ResourceOperationError(
        `Service ${inputs.serviceId} was not found in organization ${inputs.organizationId}: ` +
          `check serviceId and organizationId. (${(error as Error).message})`,
        { cause: error },
      );
    }
    if (error instanceof AuthenticationError || error instanceof PermissionDeniedError) {
      throw new ResourceOperationError(
        `The API key was refused while reading service ${inputs.serviceId}: check dbcloud:apiKeyId / ` +
          `DBCLOUD_API_KEY_ID and dbcloud:apiKeySecret / DBCLOUD_API_KEY_SECRET, and the key's role. ` +
          `(${(error as Error).message})`,
        { cause: error },
      );
    }
    throw error;
  }
  return { id: idOf(spec, inputs), outs: inputs };
}

export async function update(id: string, _olds: Props, news: Props) {
  return { outs: inputsOf(news, "update", id) };
}

/** The service gone means the endpoint is gone with it; otherwise nothing to refresh. */
export async function read(id: string, props: Props): Promise<{ id: string; props: Props }> {
  const inputs = inputsOf(props, "read", id, pickFields(fieldSchemas(), ["organizationId", "serviceId"]));
  const { client, signal } = providerContext();
  try {
    await client.getService(inputs.organizationId, inputs.serviceId, { deadline: readDeadline(), signal });
    return { id, props: { ...props, timeoutSeconds: inputs.timeoutSeconds } };
  } catch (error) {
    if (!isGone(error, ["service"])) throw error;
    consoleLog.info(refreshing.endpointServiceGone(inputs.serviceId, inputs.reversePrivateEndpointId));
    return { id: "", props: {} };
  }
}

/**
 * DELETE within `timeoutSeconds`, retries included. Any 2xx is done, and so is already gone (which
 * also covers a retried DELETE whose first answer was lost); any other error keeps the resource.
 */
export async function remove(id: string, props: Props): Promise<void> {
  const inputs = inputsOf(props, "delete", id);
  const { organizationId, serviceId, reversePrivateEndpointId: endpointId, timeoutSeconds } = inputs;
  const { client, signal } = providerContext();
  const deadline = deadlineAfter(timeoutSeconds);
  try {
    const { requestId } = await client.deleteReversePrivateEndpoint(organizationId, serviceId, endpointId, {
      deadline,
      signal,
    });
    consoleLog.info(destroying.endpointDeleted(endpointId, serviceId, requestId));
  } catch (error) {
    const why = (error as Error).message;
    if (!isGone(error)) {
      const message = `Deleting reverse private endpoint ${endpointId} of service ${serviceId} failed: ${why}`;
      throw new ResourceOperationError(message, { cause: error });
    }
    consoleLog.info(destroying.endpointAlreadyGone(endpointId, serviceId, why));
  }
}
