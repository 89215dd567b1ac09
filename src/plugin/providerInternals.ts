/*
 * Every module of the provider code the plugin reaches beyond the stable `pulumi-dbcloud/provider`
 * subpath (which serves Check through Delete): the field definitions the schema is generated
 * from, and what `getService` and import reuse. One place to follow when those modules move.
 */
export { CONFIG_SETTINGS, defaultOrganizationId } from "../config";
export { cancelAll, providerContext, readDeadline } from "../provider/context";
export {
  DEFAULT_DELETE_TIMEOUT_SECONDS,
  DEFAULT_ON_DESTROY,
  DEFAULT_TIMEOUT_SECONDS,
  MAX_TIMEOUT_SECONDS,
} from "../provider/defaults";
export { checkFields, pickFields, type FieldSchemas } from "../provider/inputs";
export { outputsOf as serviceRunStateOutputs } from "../provider/serviceRunStateInputs";
export { fieldSchemas as reversePrivateEndpointDeletionFields } from "../provider/reversePrivateEndpointDeletion";
export {
  fieldSchemas as serviceRunStateFields,
  ID_FIELDS,
  withDefaults as serviceRunStateDefaults,
} from "../provider/serviceRunStateInputs";
export { satisfies } from "../provider/stateTable";
