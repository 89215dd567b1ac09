import * as pulumi from "@pulumi/pulumi";
import type * as ProviderModule from "../provider/index";
import type { LastCommandOutput } from "../provider/lastCommand";
import { serviceRunStateSpec as spec, type EndpointOutput } from "../provider/serviceRunStateInputs";
import { programProps, type ArgsOf, type OutputsOf } from "./programDefaults";

export type { EndpointOutput, LastCommandOutput };

/*
 * The implementation, loaded by package name when a method runs. Defined in this file on purpose
 * (Pulumi captures an imported helper as its whole module): each serialized method is one line, and
 * an old stack runs the installed version. Captured by value, a failed create outgrew gRPC's headers.
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

/** Arguments of {@link ServiceRunState} (its spec's inputs); each may be a plain value or a Pulumi `Input`. */
export type ServiceRunStateArgs = ArgsOf<typeof spec>;

/** The outputs of {@link ServiceRunState}, declared by its spec: the engine fills them in. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging
export interface ServiceRunState extends OutputsOf<typeof spec> {}

/**
 * Declares that a database service is running or stopped: `pulumi up` sends start/stop only when
 * needed and waits; destroy leaves the service as it is, or stops it with `onDestroy: "stop"`.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class ServiceRunState extends pulumi.dynamic.Resource {
  /** `opts.customTimeouts` stand in for the timeouts `args` leaves out. */
  constructor(name: string, args: ServiceRunStateArgs, opts?: pulumi.CustomResourceOptions) {
    const props = programProps(spec, name, args, opts);
    super(serviceRunStateProvider, name, props, opts, "dbcloud", spec.name);
  }
}
