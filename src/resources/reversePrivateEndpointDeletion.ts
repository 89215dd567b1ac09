import * as pulumi from "@pulumi/pulumi";
import type * as ProviderModule from "../provider/index";
import { reversePrivateEndpointDeletionSpec as spec } from "../provider/reversePrivateEndpointDeletion";
import { programProps, type ArgsOf, type OutputsOf } from "./programDefaults";

/** The implementation, loaded by package name when a method runs: see serviceRunState.ts. */
function lib(): typeof ProviderModule {
  return require("pulumi-dbcloud/provider");
}

/** The provider of ReversePrivateEndpointDeletion: one-line calls into `pulumi-dbcloud/provider`, no credentials captured. */
export const reversePrivateEndpointDeletionProvider: pulumi.dynamic.ResourceProvider = {
  configure: (request) => lib().configure(request),
  check: (olds, news) => lib().reversePrivateEndpointDeletionCheck(olds, news),
  diff: (id, olds, news) => lib().reversePrivateEndpointDeletionDiff(id, olds, news),
  create: (inputs) => lib().reversePrivateEndpointDeletionCreate(inputs),
  update: (id, olds, news) => lib().reversePrivateEndpointDeletionUpdate(id, olds, news),
  read: (id, props) => lib().reversePrivateEndpointDeletionRead(id, props),
  delete: (id, props) => lib().reversePrivateEndpointDeletionDelete(id, props),
};

/** Arguments of {@link ReversePrivateEndpointDeletion}; changing any id replaces the resource, which deletes the old endpoint. */
export type ReversePrivateEndpointDeletionArgs = ArgsOf<typeof spec>;

/** The outputs of {@link ReversePrivateEndpointDeletion}: its inputs, declared by its spec. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging
export interface ReversePrivateEndpointDeletion extends OutputsOf<typeof spec> {}

/**
 * Adopts an existing reverse private endpoint of a service and deletes it when the resource is
 * destroyed or replaced. Creating it deletes nothing; `protect` or `retainOnDelete` keep an endpoint.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class ReversePrivateEndpointDeletion extends pulumi.dynamic.Resource {
  constructor(name: string, args: ReversePrivateEndpointDeletionArgs, opts?: pulumi.CustomResourceOptions) {
    const props = programProps(spec, name, args, opts);
    super(reversePrivateEndpointDeletionProvider, name, props, opts, "dbcloud", spec.name);
  }
}
