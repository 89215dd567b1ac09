import { DEFAULT_DELETE_TIMEOUT_SECONDS } from "../defaults";
import { endpointIdField, timeoutField, uuidField } from "../inputs";
import { defineResource, organizationIdField } from "../spec";

/**
 * ReversePrivateEndpointDeletion: an endpoint deleted on destroy. Its handlers:
 * `../reversePrivateEndpointDeletion.ts`. Doc comments and descriptions: as in `./serviceRunState.ts`.
 */
export const reversePrivateEndpointDeletionSpec = defineResource({
  name: "ReversePrivateEndpointDeletion",
  description:
    "Deletes a service's reverse private endpoint when this resource is destroyed (creating it deletes " +
    "nothing). Import id: `organizationId/serviceId/reversePrivateEndpointId`.",
  fields: () => ({
    /** Organization of the service (a uuid). Default: stack config `dbcloud:organizationId`, then `DBCLOUD_ORGANIZATION_ID`. */
    organizationId: organizationIdField(),
    /** The service the endpoint belongs to (a uuid). */
    serviceId: {
      schema: uuidField("serviceId"),
      description: "The service the endpoint belongs to (a uuid). Changing it replaces the resource.",
      required: true,
      replaces: true,
    },
    /** The endpoint to delete on destroy: 1 to 128 of letters, digits and `. _ : ~ -`, not dots alone. */
    reversePrivateEndpointId: {
      schema: endpointIdField(),
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
    fields: ["organizationId", "serviceId", "reversePrivateEndpointId"],
    minParts: 3,
  },
});
