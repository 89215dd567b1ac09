// The same run states as dynamic.ts, now the plugin's type, each with an alias to its dynamic
// type (as docs/plugin.md tells users to move), declared through the type token as an SDK would.
import * as pulumi from "@pulumi/pulumi";
import { ANALYTICS, STAGING } from "../helpers/fixture";

const TYPE = "dbcloud:index:ServiceRunState";
class RunState extends pulumi.CustomResource {}
const aliases = [{ type: "pulumi-nodejs:dynamic/dbcloud:ServiceRunState" }];
const outputs = {
  observedState: undefined,
  lastCommand: undefined,
  serviceName: undefined,
  databaseVersion: undefined,
};

new RunState(TYPE, "analytics", { serviceId: ANALYTICS, state: "running", ...outputs }, { aliases });
new RunState(
  TYPE,
  "staging",
  { serviceId: STAGING, state: "stopped", ...outputs },
  { aliases, customTimeouts: { create: "10m", update: "10m" } },
);
