/**
 * A preview environment: one stack per pull request points at a service set aside for previews,
 * keeps it running while the stack exists, and stops it when the stack is destroyed, so a closed
 * pull request costs nothing. The service's endpoints come from `getServiceOutput`.
 *
 *   pulumi stack init pr-123
 *   pulumi config set serviceId <uuid>                               # the preview service
 *   pulumi config set dbcloud:organizationId <uuid>                  # or DBCLOUD_ORGANIZATION_ID
 *   pulumi up        # starts the service (if stopped), exports its endpoints
 *   pulumi destroy   # stops the service and waits (at most customTimeouts.delete)
 *
 * The API URL and key come from DBCLOUD_API_URL, DBCLOUD_API_KEY_ID and DBCLOUD_API_KEY_SECRET
 * (or the dbcloud:* stack config).
 */
import * as pulumi from "@pulumi/pulumi";
import { getServiceOutput, ServiceRunState } from "pulumi-dbcloud";

const config = new pulumi.Config();

const preview = new ServiceRunState(
  "preview-service",
  { serviceId: config.require("serviceId"), state: "running", onDestroy: "stop" },
  { customTimeouts: { create: "20m", delete: "15m" } },
);

// Read after the run state is in place (it depends on the resource's output).
const service = getServiceOutput({ serviceId: preview.serviceId });

export const serviceName = service.apply((s) => s.name);
export const state = preview.observedState;
/** `protocol://host:port` of each endpoint; secret if the service holds an encryption key. */
export const endpoints = service.apply((s) =>
  (s.endpoints ?? []).map((endpoint) => `${endpoint.protocol}://${endpoint.host}:${endpoint.port}`),
);
