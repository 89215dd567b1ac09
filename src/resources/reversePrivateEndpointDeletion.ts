import * as pulumi from "@pulumi/pulumi";
import type * as ProviderModule from "../provider/index";
import { deleteTimeoutFromCustomTimeouts, programOrganizationId } from "./programDefaults";

/** The implementation, loaded by package name when a method runs: see serviceRunState.ts. */
function lib(): typeof ProviderModule {
  return require("pulumi-dbcloud/provider");
}

/**
 * The provider of ReversePrivateEndpointDeletion: one-line calls into `pulumi-dbcloud/provider`,
 * no credentials captured. An id change is a replacement; a timeout change an update with no API call.
 */
export const reversePrivateEndpointDeletionProvider: pulumi.dynamic.ResourceProvider = {
  configure: (request) => lib().configure(request),
  check: (olds, news) => lib().reversePrivateEndpointDeletionCheck(olds, news),
  diff: (id, olds, news) => lib().reversePrivateEndpointDeletionDiff(id, olds, news),
  create: (inputs) => lib().reversePrivateEndpointDeletionCreate(inputs),
  update: (id, olds, news) => lib().reversePrivateEndpointDeletionUpdate(id, olds, news),
  read: (id, props) => lib().reversePrivateEndpointDeletionRead(id, props),
  delete: (id, props) => lib().reversePrivateEndpointDeletionDelete(id, props),
};

export interface ReversePrivateEndpointDeletionArgs {
  /** Default: stack config `dbcloud:organizationId`, then `DBCLOUD_ORGANIZATION_ID`. */
  organizationId?: pulumi.Input<string>;
  /** The service (a uuid) that owns the endpoint. Changing it replaces the resource. */
  serviceId: pulumi.Input<string>;
  /** The endpoint to delete on destroy. Changing it replaces the resource (the old one is deleted). */
  reversePrivateEndpointId: pulumi.Input<string>;
  /** How long the DELETE on destroy may take, retries included, in seconds. Default 300, or `customTimeouts.delete`. */
  timeoutSeconds?: pulumi.Input<number>;
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
  declare public readonly timeoutSeconds: pulumi.Output<number>;

  constructor(name: string, args: ReversePrivateEndpointDeletionArgs, opts?: pulumi.CustomResourceOptions) {
    const type = "ReversePrivateEndpointDeletion";
    super(
      reversePrivateEndpointDeletionProvider,
      name,
      {
        organizationId: args.organizationId ?? programOrganizationId(type, name),
        serviceId: args.serviceId,
        reversePrivateEndpointId: args.reversePrivateEndpointId,
        timeoutSeconds:
          args.timeoutSeconds ?? deleteTimeoutFromCustomTimeouts(type, name, opts?.customTimeouts),
      },
      opts,
      "dbcloud",
      type,
    );
  }
}
