import * as pulumi from "@pulumi/pulumi";
import type * as ProviderModule from "../provider/index";
import { customTimeoutSeconds, programOrganizationId } from "./programDefaults";

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
export interface ReversePrivateEndpointDeletionArgs {
  /** Organization of the service (a uuid). Default: stack config `dbcloud:organizationId`, then `DBCLOUD_ORGANIZATION_ID`. */
  organizationId?: pulumi.Input<string>;
  /** The service the endpoint belongs to (a uuid). */
  serviceId: pulumi.Input<string>;
  /** The endpoint to delete on destroy: 1 to 128 of letters, digits and `. _ : ~ -`, not dots alone. */
  reversePrivateEndpointId: pulumi.Input<string>;
  /** How long the DELETE on destroy may take, retries included, in seconds. Default 300, or `customTimeouts.delete`. */
  timeoutSeconds?: pulumi.Input<number>;
}

/**
 * Adopts an existing reverse private endpoint of a service and deletes it when the resource is
 * destroyed or replaced. Creating it deletes nothing; `protect` or `retainOnDelete` keep an endpoint.
 */
export class ReversePrivateEndpointDeletion extends pulumi.dynamic.Resource {
  /** Organization of the service (a uuid), as given or taken from the config default. */
  declare public readonly organizationId: pulumi.Output<string>;
  /** The service the endpoint belongs to (a uuid). */
  declare public readonly serviceId: pulumi.Output<string>;
  /** The reverse private endpoint deleted when this resource is destroyed or replaced. */
  declare public readonly reversePrivateEndpointId: pulumi.Output<string>;
  /** How long the DELETE on destroy may take, in seconds. */
  declare public readonly timeoutSeconds: pulumi.Output<number>;

  constructor(name: string, args: ReversePrivateEndpointDeletionArgs, opts?: pulumi.CustomResourceOptions) {
    const type = "ReversePrivateEndpointDeletion";
    const props = {
      organizationId: args.organizationId ?? programOrganizationId(`${type} "${name}"`),
      serviceId: args.serviceId,
      reversePrivateEndpointId: args.reversePrivateEndpointId,
      timeoutSeconds:
        args.timeoutSeconds ?? customTimeoutSeconds(type, name, opts?.customTimeouts, ["delete"]),
    };
    super(reversePrivateEndpointDeletionProvider, name, props, opts, "dbcloud", type);
  }
}
