// Two run states declared with the dynamic resources, one of them with customTimeouts: the stack
// the move to the plugin's types starts from.
import { ServiceRunState } from "pulumi-dbcloud";
import { ANALYTICS, STAGING } from "../helpers/fixture";

new ServiceRunState("analytics", { serviceId: ANALYTICS, state: "running" });
new ServiceRunState(
  "staging",
  { serviceId: STAGING, state: "stopped" },
  { customTimeouts: { create: "10m", update: "10m" } },
);
