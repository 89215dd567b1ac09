/**
 * The stack the pipelines deploy: every listed service is declared in one run state, chosen by a
 * single configuration value, `runState`. Pull requests preview it, the main branch applies it,
 * and a scheduled job flips `runState` to stop development services in the evening and start
 * them in the morning. Configuration lives in `Pulumi.<stack>.yaml`; credentials come from the
 * pipeline's secret store as DBCLOUD_API_URL, DBCLOUD_API_KEY_ID and DBCLOUD_API_KEY_SECRET.
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
const services = config.requireObject<ServiceEntry[]>("services");

const declared = services.map(
  (service) =>
    new ServiceRunState(
      service.name,
      { serviceId: service.serviceId, state: runState },
      { customTimeouts: { create: "30m", update: "30m" } },
    ),
);

export const desired = runState;
export const observed = declared.map((resource) => resource.observedState);
