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

type Props = Record<string, unknown>;

/** Both providers' `configure`: keeps the `dbcloud:*` stack config for the calls that follow. */
export function configure(request: { config: { get(key: string): unknown } }): Promise<void> {
  configureFromStack(request);
  return Promise.resolve();
}

export function serviceRunStateCheck(olds: Props, news: Props) {
  return serviceRunStateInputs.check(olds, news);
}
export function serviceRunStateDiff(id: string, olds: Props, news: Props) {
  return serviceRunStateInputs.diff(id, olds, news);
}
export function serviceRunStateCreate(inputs: Props) {
  return serviceRunState.create(inputs);
}
export function serviceRunStateRead(id: string, props: Props) {
  return serviceRunState.read(id, props);
}
export function serviceRunStateUpdate(id: string, olds: Props, news: Props) {
  return serviceRunState.update(id, olds, news);
}
export function serviceRunStateDelete(id: string, props: Props) {
  return serviceRunState.remove(id, props);
}

export function reversePrivateEndpointDeletionCheck(olds: Props, news: Props) {
  return endpointDeletion.check(olds, news);
}
export function reversePrivateEndpointDeletionDiff(id: string, olds: Props, news: Props) {
  return endpointDeletion.diff(id, olds, news);
}
export function reversePrivateEndpointDeletionCreate(inputs: Props) {
  return endpointDeletion.create(inputs);
}
export function reversePrivateEndpointDeletionUpdate(id: string, olds: Props, news: Props) {
  return endpointDeletion.update(id, olds, news);
}
export function reversePrivateEndpointDeletionRead(id: string, props: Props) {
  return endpointDeletion.read(id, props);
}
export function reversePrivateEndpointDeletionDelete(id: string, props: Props) {
  return endpointDeletion.remove(id, props);
}
