/*
 * Every module of the provider code the plugin reaches beyond the stable `pulumi-dbcloud/provider`
 * subpath (which serves Check through Delete): the field definitions the schema is generated
 * from, and what `getService` and import reuse. One place to follow when those modules move.
 */
export { defaultOrganizationId } from "../provider/config";
export { providerContext, readDeadline } from "../provider/context";
export { checkFields, MAX_TIMEOUT_SECONDS, pickFields, type FieldSchemas } from "../provider/inputs";
export {
  fieldSchemas as reversePrivateEndpointDeletionFields,
  DEFAULT_DELETE_TIMEOUT_SECONDS,
} from "../provider/reversePrivateEndpointDeletion";
export {
  DEFAULT_ON_DESTROY,
  DEFAULT_TIMEOUT_SECONDS,
  fieldSchemas as serviceRunStateFields,
  ID_FIELDS,
  outputsOf as serviceRunStateOutputs,
  withDefaults as serviceRunStateDefaults,
} from "../provider/serviceRunState";
export { satisfies } from "../provider/stateTable";
export { holdsSecret } from "../resources/getService";
