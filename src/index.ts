/** pulumi-dbcloud: Pulumi dynamic providers for a database cloud's management API. */
export {
  ServiceRunState,
  serviceRunStateProvider,
  type ServiceRunStateArgs,
  type EndpointOutput,
} from "./resources/serviceRunState";
export {
  ReversePrivateEndpointDeletion,
  reversePrivateEndpointDeletionProvider,
  type ReversePrivateEndpointDeletionArgs,
} from "./resources/reversePrivateEndpointDeletion";
export {
  KNOWN_STATES,
  decide,
  satisfies,
  type Decision,
  type DesiredState,
} from "./resources/impl/stateTable";
export { DEFAULT_TUNING, type ConvergeTuning } from "./resources/impl/converge";
export { DEFAULT_TIMEOUT_SECONDS } from "./resources/impl/serviceRunState";
export * from "./api";
export {
  startEmulator,
  type Emulator,
  type EmulatorOptions,
  type Fault,
  type RequestLogEntry,
  type SeedService,
  type TransitionTimes,
} from "./emulator";
