/**
 * `pulumi-dbcloud/provider`: the one module through which the provider objects' methods call
 * into the library.
 *
 * When the package is installed from npm, Pulumi serializes each provider object with a
 * `require("pulumi-dbcloud/provider")` and stores that text in every stack's state; destroy and
 * refresh run the stored text with whatever version is installed then. So this subpath and the
 * names and signatures exported here are a compatibility contract: add, never rename or remove.
 */
import { configureFromStack } from "../config";
import * as endpointDeletion from "./reversePrivateEndpointDeletion";
import * as serviceRunState from "./serviceRunState";
import * as serviceRunStateInputs from "./serviceRunStateInputs";

/** Both providers' `configure`: keeps the `dbcloud:*` stack config for the calls that follow. */
export function configure(request: { config: { get(key: string): unknown } }): Promise<void> {
  configureFromStack(request);
  return Promise.resolve();
}

// The same functions under their stored names: aliases, so the signatures are the modules' own.
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
