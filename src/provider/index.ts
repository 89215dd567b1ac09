/**
 * `pulumi-dbcloud/provider`: what the provider objects' methods call. Every stack's state stores
 * their text, `require("pulumi-dbcloud/provider").<name>(...)`, and destroy and refresh run it with
 * the version installed then: these names and signatures are a contract; add, never rename or remove.
 */
import { configureFromStack } from "../config";
import * as endpointDeletion from "./reversePrivateEndpointDeletion";
import * as serviceRunState from "./serviceRunState";
import * as serviceRunStateInputs from "./serviceRunStateInputs";

/** Both providers' `configure`: keeps the `dbcloud:*` stack config for the calls that follow. */
export async function configure(request: { config: { get(key: string): unknown } }): Promise<void> {
  configureFromStack(request);
}

export const serviceRunStateCheck = serviceRunStateInputs.check;
export const serviceRunStateDiff = serviceRunStateInputs.diff;
export const serviceRunStateCreate = serviceRunState.create;
export const serviceRunStateRead = serviceRunState.read;
export const serviceRunStateUpdate = serviceRunState.update;
export const serviceRunStateDelete = serviceRunState.remove;

export const reversePrivateEndpointDeletionCheck = endpointDeletion.check;
export const reversePrivateEndpointDeletionDiff = endpointDeletion.diff;
export const reversePrivateEndpointDeletionCreate = endpointDeletion.create;
export const reversePrivateEndpointDeletionUpdate = endpointDeletion.update;
export const reversePrivateEndpointDeletionRead = endpointDeletion.read;
export const reversePrivateEndpointDeletionDelete = endpointDeletion.remove;
