/**
 * A warehouse (a primary service and the secondaries that share its data) stopped in the evening
 * and started in the morning by one stack. Every service is declared in the same run state with
 * no `dependsOn` between them: no order suits both the stop (secondaries first) and the start
 * (primary first), so Pulumi updates them all at once, and each waits for the others where the
 * service requires it. A primary's stop refused while a secondary still runs is sent again once
 * the secondaries are stopped (and a secondary's start refused while its primary is stopped,
 * likewise), so one `pulumi up` converges either way.
 *
 * The schedule is the pipelines example's (`examples/pipelines/github/dev-schedule.yml` or
 * `gitlab/.gitlab-ci.yml`) with this directory as its working directory: it flips `runState` and
 * runs `pulumi up`. The timeouts leave the primary time to wait for its secondaries.
 */
import * as pulumi from "@pulumi/pulumi";
import { ServiceRunState } from "pulumi-dbcloud";

interface ServiceEntry {
  name: string;
  serviceId: string;
}

const config = new pulumi.Config();
const runState = config.require("runState");
if (runState !== "running" && runState !== "stopped") {
  throw new Error(`${config.name}:runState must be "running" or "stopped" (got ${JSON.stringify(runState)})`);
}
const warehouse = config.requireObject<{ primary: ServiceEntry; secondaries: ServiceEntry[] }>("warehouse");

const declared = [warehouse.primary, ...warehouse.secondaries].map(
  (service) =>
    new ServiceRunState(
      service.name,
      { serviceId: service.serviceId, state: runState },
      { customTimeouts: { create: "30m", update: "30m" } },
    ),
);

export const desired = runState;
export const observed = declared.map((resource) => resource.observedState);
