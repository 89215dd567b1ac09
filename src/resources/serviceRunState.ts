import * as pulumi from "@pulumi/pulumi";
import type * as ProviderModule from "../provider/index";
import type { LastCommandOutput } from "../provider/lastCommand";
import type { EndpointOutput } from "../provider/serviceRunStateInputs";
import { customTimeoutSeconds, programOrganizationId } from "./programDefaults";

export type { EndpointOutput, LastCommandOutput };

/*
 * The implementation, loaded by package name when a method runs (defined in this file on purpose:
 * Pulumi captures an imported helper as its module, by reference). Each serialized method is then one
 * line naming `pulumi-dbcloud/provider` (about 2 KB a resource), and an old stack runs the installed
 * version; captured by value, the provider grew past 64 KB and a failed create exceeded gRPC's header limit.
 */
function lib(): typeof ProviderModule {
  return require("pulumi-dbcloud/provider");
}

/** The provider of ServiceRunState: one-line calls into `pulumi-dbcloud/provider`, no credentials captured. */
export const serviceRunStateProvider: pulumi.dynamic.ResourceProvider = {
  configure: (request) => lib().configure(request),
  check: (olds, news) => lib().serviceRunStateCheck(olds, news),
  diff: (id, olds, news) => lib().serviceRunStateDiff(id, olds, news),
  create: (inputs) => lib().serviceRunStateCreate(inputs),
  read: (id, props) => lib().serviceRunStateRead(id, props),
  update: (id, olds, news) => lib().serviceRunStateUpdate(id, olds, news),
  delete: (id, props) => lib().serviceRunStateDelete(id, props),
};

/** Arguments of {@link ServiceRunState}; each may be a plain value or a Pulumi `Input`. */
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
  /** What destroy does to the service: `leave` it (default), or `stop` it and wait; a failed stop keeps the resource. */
  onDestroy?: pulumi.Input<"leave" | "stop">;
  /** How long a stop on destroy may wait, in seconds. Default `customTimeouts.delete`, else `timeoutSeconds`. */
  deleteTimeoutSeconds?: pulumi.Input<number>;
}

/**
 * Declares that a database service is running or stopped: `pulumi up` sends start/stop only when
 * needed and waits; destroy leaves the service as it is, or stops it with `onDestroy: "stop"`.
 */
export class ServiceRunState extends pulumi.dynamic.Resource {
  /** Organization of the service (a uuid), as given or taken from the config default. */
  declare public readonly organizationId: pulumi.Output<string>;
  /** The service (a uuid). */
  declare public readonly serviceId: pulumi.Output<string>;
  /** The desired run state. */
  declare public readonly state: pulumi.Output<"running" | "stopped">;
  /** The deadline create/update waited with, in seconds. */
  declare public readonly timeoutSeconds: pulumi.Output<number>;
  /** Whether create/update waited for the state. */
  declare public readonly waitForState: pulumi.Output<boolean>;
  /** What destroy does to the service: `leave` or `stop`. */
  declare public readonly onDestroy: pulumi.Output<"leave" | "stop">;
  /** The state last seen by the API (after create, update or refresh). */
  declare public readonly observedState: pulumi.Output<string>;
  /** The service's name, as the API showed it last. */
  declare public readonly serviceName: pulumi.Output<string>;
  /** The service's database version, as the API showed it last. */
  declare public readonly databaseVersion: pulumi.Output<string>;
  /** The service's endpoints (protocol, host, port, username), as the API showed them last. */
  declare public readonly endpoints: pulumi.Output<EndpointOutput[]>;
  /** The last start or stop this resource sent, when, and whether a GET has shown it since. */
  declare public readonly lastCommand: pulumi.Output<LastCommandOutput>;

  /** `opts.customTimeouts` stand in for the timeouts `args` leaves out. */
  constructor(name: string, args: ServiceRunStateArgs, opts?: pulumi.CustomResourceOptions) {
    const type = "ServiceRunState";
    const timeouts = opts?.customTimeouts;
    const props = {
      organizationId: args.organizationId ?? programOrganizationId(`${type} "${name}"`),
      serviceId: args.serviceId,
      state: args.state,
      timeoutSeconds: args.timeoutSeconds ?? customTimeoutSeconds(type, name, timeouts, ["create", "update"]),
      waitForState: args.waitForState,
      onDestroy: args.onDestroy,
      deleteTimeoutSeconds:
        args.deleteTimeoutSeconds ?? customTimeoutSeconds(type, name, timeouts, ["delete"]),
      // The outputs, declared so that the engine fills them in.
      observedState: undefined,
      serviceName: undefined,
      databaseVersion: undefined,
      endpoints: undefined,
      lastCommand: undefined,
    };
    super(serviceRunStateProvider, name, props, opts, "dbcloud", type);
  }
}
