import * as pulumi from "@pulumi/pulumi";
import { lib } from "./lib";
import type { EndpointOutput } from "./impl/serviceRunState";
import { programOrganizationId, timeoutFromCustomTimeouts } from "./programDefaults";

export type { EndpointOutput } from "./impl/serviceRunState";


/**
 * The provider of ServiceRunState. Each method is a one-line call into `pulumi-dbcloud/provider`
 * so the serialized provider stays small and refers to that subpath only. It holds no
 * credentials: they come from the stack config (`configure`) or the environment at run time.
 */
export const serviceRunStateProvider: pulumi.dynamic.ResourceProvider = {
  configure: (request) => lib().configure(request),
  check: (olds, news) => lib().serviceRunStateCheck(olds, news),
  diff: (id, olds, news) => lib().serviceRunStateDiff(id, olds, news),
  create: (inputs) => lib().serviceRunStateCreate(inputs),
  read: (id, props) => lib().serviceRunStateRead(id, props),
  update: (id, olds, news) => lib().serviceRunStateUpdate(id, olds, news),
  delete: (id, props) => lib().serviceRunStateDelete(id, props),
};

export interface ServiceRunStateArgs {
  /** Organization of the service. Default: stack config `dbcloud:organizationId`, then `DBCLOUD_ORGANIZATION_ID`. */
  organizationId?: pulumi.Input<string>;
  /** The service (a uuid). Changing it replaces the resource. */
  serviceId: pulumi.Input<string>;
  /** The run state the service must be in. */
  state: pulumi.Input<"running" | "stopped">;
  /** How long create/update may wait for the state, in seconds. Default 1200, or the longer of `customTimeouts.create`/`.update`. */
  timeoutSeconds?: pulumi.Input<number>;
  /** Wait until the service is in the state (default true); false returns once the command is accepted. */
  waitForState?: pulumi.Input<boolean>;
}

/**
 * Declares that a database service is running or stopped. `pulumi up` sends start/stop only
 * when needed and waits for the state; `pulumi refresh` shows drift; destroying the resource
 * leaves the service as it is.
 */
export class ServiceRunState extends pulumi.dynamic.Resource {
  declare public readonly organizationId: pulumi.Output<string>;
  declare public readonly serviceId: pulumi.Output<string>;
  declare public readonly state: pulumi.Output<"running" | "stopped">;
  declare public readonly timeoutSeconds: pulumi.Output<number>;
  declare public readonly waitForState: pulumi.Output<boolean>;
  /** The state last seen by the API (after create, update or refresh). */
  declare public readonly observedState: pulumi.Output<string>;
  declare public readonly serviceName: pulumi.Output<string>;
  declare public readonly databaseVersion: pulumi.Output<string>;
  declare public readonly endpoints: pulumi.Output<EndpointOutput[]>;

  constructor(name: string, args: ServiceRunStateArgs, opts?: pulumi.CustomResourceOptions) {
    const type = "ServiceRunState";
    super(
      serviceRunStateProvider,
      name,
      {
        organizationId: args.organizationId ?? programOrganizationId(type, name),
        serviceId: args.serviceId,
        state: args.state,
        timeoutSeconds: args.timeoutSeconds ?? timeoutFromCustomTimeouts(type, name, opts?.customTimeouts),
        waitForState: args.waitForState,
        observedState: undefined,
        serviceName: undefined,
        databaseVersion: undefined,
        endpoints: undefined,
      },
      opts,
      "dbcloud",
      type,
    );
  }
}
