import { reversePrivateEndpointDeletionSpec } from "../provider/reversePrivateEndpointDeletion";
import { serviceRunStateSpec } from "../provider/serviceRunStateInputs";

/*
 * Every module of the provider code the plugin reaches beyond the stable `pulumi-dbcloud/provider`
 * subpath (which serves Check through Delete): the resources' specs the table and schema derive
 * from, and what `getService` and import reuse. One place to follow when those modules move.
 */
export { CONFIG_SETTINGS, defaultOrganizationId } from "../config";
export { cancelAll, providerContext, readDeadline } from "../provider/context";
export { MAX_TIMEOUT_SECONDS } from "../provider/defaults";
export { checkFields, pickFields, withSecrets } from "../provider/inputs";
export {
  idOf,
  ORGANIZATION_DESCRIPTION,
  timeoutInput,
  type OutputTable,
  type ResourceSpec,
} from "../provider/spec";
export { serviceRunStateSpec };

/** Every resource of the package, in the schema's order: adding a resource adds its spec here. */
export const SPECS = [serviceRunStateSpec, reversePrivateEndpointDeletionSpec];
