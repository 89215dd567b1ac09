/**
 * A complete program to copy: each configured service is declared running or stopped, and a
 * reverse private endpoint is deleted when the stack is destroyed.
 *
 *   pulumi config set dbcloud:apiUrl https://api.example.com        # or DBCLOUD_API_URL
 *   pulumi config set dbcloud:apiKeyId <key id>                      # or DBCLOUD_API_KEY_ID
 *   pulumi config set --secret dbcloud:apiKeySecret <key secret>     # or DBCLOUD_API_KEY_SECRET
 *   pulumi config set dbcloud:organizationId <uuid>                  # or DBCLOUD_ORGANIZATION_ID
 *   pulumi config set --path 'services[0]' '{"name":"analytics","serviceId":"<uuid>","state":"running"}'
 *   pulumi config set --path reversePrivateEndpoint '{"serviceId":"<uuid>","endpointId":"<id>"}'
 */
import * as pulumi from "@pulumi/pulumi";
import { ReversePrivateEndpointDeletion, ServiceRunState } from "pulumi-dbcloud";
import { readExampleConfig } from "./config";

const config = readExampleConfig(new pulumi.Config());

const runStates = config.services.map(
  (service) =>
    new ServiceRunState(service.name, {
      serviceId: service.serviceId,
      state: service.state,
      timeoutSeconds: service.timeoutSeconds,
    }),
);

const endpoint = config.reversePrivateEndpoint
  ? new ReversePrivateEndpointDeletion("pipes-endpoint", {
      serviceId: config.reversePrivateEndpoint.serviceId,
      reversePrivateEndpointId: config.reversePrivateEndpoint.endpointId,
    })
  : undefined;

/** What each service looked like after the last `pulumi up` or `pulumi refresh`. */
export const services = runStates.map((runState) => ({
  name: runState.serviceName,
  desired: runState.state,
  observed: runState.observedState,
  databaseVersion: runState.databaseVersion,
}));
export const deletedOnDestroy = endpoint?.reversePrivateEndpointId;
