import { reversePrivateEndpointDeletionSpec } from "./reversePrivateEndpointDeletion";
import { serviceRunStateSpec } from "./serviceRunState";

/** Every resource of the package, in the schema's order: adding a resource adds its spec here. */
export const SPECS = [serviceRunStateSpec, reversePrivateEndpointDeletionSpec] as const;

export { reversePrivateEndpointDeletionSpec, serviceRunStateSpec };
