import * as pulumi from "@pulumi/pulumi";
import type * as ProviderModule from "../provider/index";
import { programOrganizationId } from "./programDefaults";

/** The implementation, loaded by package name when a method runs: see serviceRunState.ts. */
function lib(): typeof ProviderModule {
  return require("pulumi-dbcloud/provider");
}

/**
 * The provider of ReversePrivateEndpointDeletion: one-line calls into `pulumi-dbcloud/provider`,
 * no credentials captured. No `update`: every input change is a replacement.
 */
export const reversePrivateEndpointDeletionProvider: pulumi.dynamic.ResourceProvider = {
  configure: (request) => lib().configure(request),
  check: (olds, news) => lib().reversePrivateEndpointDeletionCheck(olds, news),
  diff: (id, olds, news) => lib().reversePrivateEndpointDeletionDiff(id, olds, news),
  create: (inputs) => lib().reversePrivateEndpointDeletionCreate(inputs),
  read: (id, props) => lib().reversePrivateEndpointDeletionRead(id, props),
  delete: (id, props) => lib().reversePrivateEndpointDeletionDelete(id, props),
};

export interface ReversePrivateEndpointDeletionArgs {
  /** Default: stack config `dbcloud:organizationId`, then `DBCLOUD_ORGANIZATION_ID`. */
  organizationId?: pulumi.Input<string>;
  serviceId: pulumi.Input<string>;
  reversePrivateEndpointId: pulumi.Input<string>;
}

/**
 * Adopts an existing reverse private endpoint of a service and deletes it when the resource is
 * destroyed or replaced. Creating it deletes nothing. Use `protect` or `retainOnDelete` to keep
 * an endpoint.
 */
export class ReversePrivateEndpointDeletion extends pulumi.dynamic.Resource {
  declare public readonly organizationId: pulumi.Output<string>;
  declare public readonly serviceId: pulumi.Output<string>;
  declare public readonly reversePrivateEndpointId: pulumi.Output<string>;

  constructor(name: string, args: ReversePrivateEndpointDeletionArgs, opts?: pulumi.CustomResourceOptions) {
    const type = "ReversePrivateEndpointDeletion";
    super(
      reversePrivateEndpointDeletionProvider,
      name,
      {
        organizationId: args.organizationId ?? programOrganizationId(type, name),
        serviceId: args.serviceId,
        reversePrivateEndpointId: args.reversePrivateEndpointId,
      },
      opts,
      "dbcloud",
      type,
    );
  }
}
