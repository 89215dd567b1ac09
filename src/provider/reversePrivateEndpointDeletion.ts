import { AuthenticationError, PermissionDeniedError } from "../api/errors";
import { defaultOrganizationId } from "./config";
import { consoleLog, providerContext } from "./context";
import { checkInputs, endpointIdField, uuidField, UNKNOWN_VALUE, type CheckFailure } from "./inputs";
import { once } from "../api/once";
import { isGone } from "./outcomes";

/** The provider side of ReversePrivateEndpointDeletion: every method of its provider lands here. */

export interface EndpointDeletionInputs {
  organizationId: string;
  serviceId: string;
  reversePrivateEndpointId: string;
}

type Props = Record<string, unknown>;

const ID_FIELDS = ["organizationId", "serviceId", "reversePrivateEndpointId"] as const;

const fieldSchemas = once(() => ({
  organizationId: { schema: uuidField("organizationId"), required: true },
  serviceId: { schema: uuidField("serviceId"), required: true },
  reversePrivateEndpointId: { schema: endpointIdField(), required: true },
}));

export async function check(_olds: Props, news: Props): Promise<{ inputs: Props; failures: CheckFailure[] }> {
  return checkInputs(news, fieldSchemas(), { organizationId: defaultOrganizationId() });
}

/** Any id change is a replacement: the old endpoint is deleted when its resource goes. */
export async function diff(_id: string, olds: Props, news: Props) {
  const replaces = ID_FIELDS.filter((k) => news[k] === UNKNOWN_VALUE || olds[k] !== news[k]);
  return { changes: replaces.length > 0, replaces: [...replaces], deleteBeforeReplace: false };
}

function inputsOf(props: Props): EndpointDeletionInputs {
  return {
    organizationId: props.organizationId as string,
    serviceId: props.serviceId as string,
    reversePrivateEndpointId: props.reversePrivateEndpointId as string,
  };
}

function idOf(inputs: EndpointDeletionInputs): string {
  return `${inputs.organizationId}/${inputs.serviceId}/${inputs.reversePrivateEndpointId}`;
}

/** Adopts the endpoint: verifies that the service exists; deletes nothing. */
export async function create(props: Props): Promise<{ id: string; outs: EndpointDeletionInputs }> {
  const inputs = inputsOf(props);
  const { client } = providerContext();
  try {
    await client.getService(inputs.organizationId, inputs.serviceId);
  } catch (error) {
    if (isGone(error)) {
      throw new Error(
        `Service ${inputs.serviceId} was not found in organization ${inputs.organizationId}: ` +
          `check serviceId and organizationId. (${(error as Error).message})`,
      );
    }
    if (error instanceof AuthenticationError || error instanceof PermissionDeniedError) {
      throw new Error(
        `The API key was refused while reading service ${inputs.serviceId}: check dbcloud:apiKeyId / ` +
          `DBCLOUD_API_KEY_ID and dbcloud:apiKeySecret / DBCLOUD_API_KEY_SECRET, and the key's role. ` +
          `(${(error as Error).message})`,
      );
    }
    throw error;
  }
  return { id: idOf(inputs), outs: inputs };
}

/** The service gone means the endpoint is gone with it; otherwise nothing to refresh. */
export async function read(id: string, props: Props): Promise<{ id: string; props: Props }> {
  const inputs = inputsOf(props);
  const { client } = providerContext();
  try {
    await client.getService(inputs.organizationId, inputs.serviceId);
    return { id, props: { ...inputs } };
  } catch (error) {
    if (isGone(error)) {
      consoleLog.info(
        `service ${inputs.serviceId} no longer exists; removing the deletion of endpoint ` +
          `${inputs.reversePrivateEndpointId} from the stack`,
      );
      return { id: "", props: {} };
    }
    throw error;
  }
}

/**
 * DELETE, retried by the client on 429/5xx/network errors. Not found counts as done: the
 * endpoint (or its service) is already gone, which also covers a DELETE that succeeded on the
 * server but whose answer was lost and was retried.
 */
export async function remove(_id: string, props: Props): Promise<void> {
  const inputs = inputsOf(props);
  const { client } = providerContext();
  try {
    const { requestId } = await client.deleteReversePrivateEndpoint(
      inputs.organizationId,
      inputs.serviceId,
      inputs.reversePrivateEndpointId,
    );
    consoleLog.info(
      `deleted reverse private endpoint ${inputs.reversePrivateEndpointId} of service ${inputs.serviceId}` +
        `${requestId ? ` (requestId ${requestId})` : ""}`,
    );
  } catch (error) {
    if (isGone(error)) {
      consoleLog.info(
        `reverse private endpoint ${inputs.reversePrivateEndpointId} of service ${inputs.serviceId} ` +
          `was already gone; nothing to delete (${(error as Error).message})`,
      );
      return;
    }
    throw new Error(
      `Deleting reverse private endpoint ${inputs.reversePrivateEndpointId} of service ${inputs.serviceId} ` +
        `failed: ${(error as Error).message}`,
    );
  }
}
