import { z } from "zod";
import { AuthenticationError, PermissionDeniedError } from "../api/errors";
import { isEndpointId } from "../api/guards";
import { deadlineAfter, providerContext, readDeadline } from "./context";
import { DEFAULT_DELETE_TIMEOUT_SECONDS } from "./defaults";
import { pickFields, timeoutField, type Props } from "./inputs";
import { isGone, ResourceOperationError } from "./resourceErrors";
import { consoleLog, destroying, refreshing } from "./progress";
import { checkAndDiff, defineResource, idOf, organizationIdField, serviceIdField, validInputs } from "./spec";

/** ReversePrivateEndpointDeletion's spec (doc comments and descriptions: as in `serviceRunStateInputs.ts`), then its handlers. */
export const reversePrivateEndpointDeletionSpec = defineResource({
  name: "ReversePrivateEndpointDeletion",
  description:
    "Deletes a service's reverse private endpoint when this resource is destroyed (creating it deletes " +
    "nothing). Import id: `organizationId/serviceId/reversePrivateEndpointId`.",
  fields: () => ({
    /** Organization of the service (a uuid). Default: stack config `dbcloud:organizationId`, then `DBCLOUD_ORGANIZATION_ID`. */
    organizationId: organizationIdField(),
    /** The service the endpoint belongs to (a uuid). */
    serviceId: serviceIdField(
      "The service the endpoint belongs to (a uuid). Changing it replaces the resource.",
    ),
    /** The endpoint to delete on destroy: 1 to 128 of letters, digits and `. _ : ~ -`, not dots alone. */
    reversePrivateEndpointId: {
      schema: z.string({ error: "reversePrivateEndpointId must be a string" }).refine(isEndpointId, {
        error: "reversePrivateEndpointId must be 1 to 128 characters of letters, digits and . _ : ~ -",
      }),
      description: "The reverse private endpoint to delete when this resource is destroyed.",
      required: true,
      replaces: true,
    },
    /** How long the DELETE on destroy may take, retries included, in seconds. Default 300, or `customTimeouts.delete`. */
    timeoutSeconds: {
      schema: timeoutField("timeoutSeconds"),
      description:
        "How long destroy may spend deleting the endpoint, in seconds (default 300). `customTimeouts.delete`, " +
        "when set, bounds it instead.",
      default: DEFAULT_DELETE_TIMEOUT_SECONDS,
      timeouts: ["delete"],
    },
  }),
  // Its outputs are its inputs.
  outputs: {},
  id: {
    fields: ["organizationId", "serviceId", "reversePrivateEndpointId"],
    labels: ["organization", "service", "endpoint"],
  },
  importId: {
    form: "organizationId/serviceId/reversePrivateEndpointId (e.g. <organization uuid>/<service uuid>/rpe-1)",
    minParts: 3,
  },
});

const spec = reversePrivateEndpointDeletionSpec;

/** Any id change is a replacement (the old endpoint is deleted); a timeout change an update with no API call. */
export const { check, diff } = checkAndDiff(spec);

/** Adopts the endpoint: verifies that the service exists; deletes nothing. */
export async function create(props: Props) {
  const inputs = validInputs(spec, "create", props);
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
  return { outs: validInputs(spec, "update", news, id) };
}

/** The service gone means the endpoint is gone with it; otherwise nothing to refresh. */
export async function read(id: string, props: Props): Promise<{ id: string; props: Props }> {
  const ids = pickFields(spec.fields(), ["organizationId", "serviceId"]);
  const inputs = validInputs(spec, "read", props, id, ids);
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
 * DELETE within `timeoutSeconds`, retries included. Already gone is done too (which covers a retried
 * DELETE whose first answer was lost); any other error keeps the resource.
 */
export async function remove(id: string, props: Props): Promise<void> {
  const inputs = validInputs(spec, "delete", props, id);
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
