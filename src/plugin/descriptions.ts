import type { IpAccessListEntry, Service, ServiceEndpoint } from "../api/schemas";

/*
 * What a user reads in their IDE for each schema entry. The types and names come from the
 * provider code (schema.ts); only the words are here. The Service tables are typed from the
 * `Service` interface: a field added to or removed from it, or changed to another kind, does not
 * compile until its entry here follows.
 */

type KindOf<T> = T extends string
  ? "string"
  : T extends number
    ? "number"
    : T extends boolean
      ? "boolean"
      : T extends string[]
        ? "string[]"
        : T extends ServiceEndpoint[]
          ? "ServiceEndpoint[]"
          : T extends IpAccessListEntry[]
            ? "IpAccessListEntry[]"
            : never;
/** Each field of `T`: its kind (checked against the type) and its description. */
export type FieldTable<T> = { [K in keyof Required<T>]: [KindOf<NonNullable<T[K]>>, string] };

export const SERVICE_FIELDS: FieldTable<Service> = {
  id: ["string", "Unique service id (a uuid)."],
  name: ["string", "Service name."],
  provider: ["string", "Cloud provider."],
  region: ["string", "Service region."],
  state: ["string", "Current state (`running`, `stopped`, `idle`, `starting`, ...)."],
  databaseVersion: ["string", "Database engine version of the service."],
  endpoints: ["ServiceEndpoint[]", "All service endpoints."],
  tier: ["string", "Deprecated by the API."],
  minTotalMemoryGb: ["number", "Deprecated by the API."],
  maxTotalMemoryGb: ["number", "Deprecated by the API."],
  minReplicaMemoryGb: ["number", "Minimum memory of each replica during auto-scaling, in GB."],
  maxReplicaMemoryGb: ["number", "Maximum memory of each replica during auto-scaling, in GB."],
  numReplicas: ["number", "Number of replicas."],
  idleScaling: ["boolean", "Whether the service may scale down to zero when idle."],
  idleTimeoutMinutes: ["number", "Minimum idling timeout, in minutes."],
  ipAccessList: ["IpAccessListEntry[]", "IP addresses allowed to access the service."],
  createdAt: ["string", "When the service was created (ISO 8601)."],
  encryptionKey: ["string", "Customer-provided disk encryption key: returned as a secret."],
  encryptionAssumedRoleIdentifier: ["string", "Role used for disk encryption."],
  iamRole: ["string", "IAM role used for accessing objects in object storage."],
  privateEndpointIds: ["string[]", "Private endpoints of the service."],
  availablePrivateEndpointIds: ["string[]", "Private endpoint ids that can be attached to the service."],
  dataWarehouseId: ["string", "Data warehouse that contains this service."],
  isPrimary: ["boolean", "Whether this is the primary service of its data warehouse."],
  isReadonly: ["boolean", "Whether the service is read-only."],
  releaseChannel: ["string", "Release channel."],
  byocId: ["string", "Id of a Bring Your Own Cloud region setup."],
  hasTransparentDataEncryption: ["boolean", "Whether Transparent Data Encryption is enabled."],
  profile: ["string", "Custom instance profile."],
  transparentDataEncryptionKeyId: ["string", "Id of the TDE key."],
  encryptionRoleId: ["string", "Id of the IAM role used for encryption."],
  complianceType: ["string", "Type of regulatory compliance."],
};

export const ENDPOINT_FIELDS: FieldTable<ServiceEndpoint> = {
  protocol: ["string", "`https`, `nativesecure` or `mysql` (or a protocol the API adds later)."],
  host: ["string", "Host name."],
  port: ["number", "Port number."],
  username: ["string", "Username of the endpoint, if any."],
};

export const IP_ACCESS_FIELDS: FieldTable<IpAccessListEntry> = {
  source: ["string", "IP address or CIDR."],
  description: ["string", "Description of the address or CIDR."],
};

const ORGANIZATION =
  "Organization of the service (a uuid). Default: the provider's `organizationId` (stack config " +
  "`dbcloud:organizationId`, then `DBCLOUD_ORGANIZATION_ID`).";

/** Properties of the resources (inputs and outputs) and of their object outputs, by resource. */
export const PROPERTY_DESCRIPTIONS: Record<string, Record<string, string>> = {
  ServiceRunState: {
    organizationId: `${ORGANIZATION} Changing it replaces the resource.`,
    serviceId: "The service (a uuid). Changing it replaces the resource.",
    state: "The run state the service must be in.",
    timeoutSeconds:
      "How long create and update may wait for the state, in seconds (default 1200). The " +
      "`customTimeouts` option, when set, bounds the wait instead.",
    waitForState:
      "Wait until the service is in the state (default true); false returns once the command is accepted.",
    onDestroy:
      "What destroying the resource does to the service: `leave` it as it is (default), or `stop` it and wait.",
    deleteTimeoutSeconds:
      "How long a stop on destroy may wait, in seconds. Default: `customTimeouts.delete`, else `timeoutSeconds`.",
    observedState: "The state the service showed at the last read.",
    serviceName: "The service's name.",
    databaseVersion: "The service's database version.",
    endpoints: "The service's endpoints.",
    lastCommand: "The last start or stop this resource sent, when, and whether a read has shown it since.",
  },
  ReversePrivateEndpointDeletion: {
    organizationId: `${ORGANIZATION} Changing it replaces the resource.`,
    serviceId: "The service the endpoint belongs to (a uuid). Changing it replaces the resource.",
    reversePrivateEndpointId: "The reverse private endpoint to delete when this resource is destroyed.",
    timeoutSeconds:
      "How long destroy may spend deleting the endpoint, in seconds (default 300). `customTimeouts.delete`, " +
      "when set, bounds it instead.",
  },
  getService: {
    organizationId: ORGANIZATION,
    serviceId: "The service to read (a uuid).",
  },
  LastCommand: {
    command: "`start` or `stop`; empty when this resource has sent none.",
    sentAt: "When the command was accepted (ISO 8601, UTC); empty with no command.",
    seen: "Whether a read has shown the command since.",
  },
};

export const RESOURCE_DESCRIPTIONS: Record<string, string> = {
  ServiceRunState:
    "Declares that a database service is running or stopped. `pulumi up` sends start or stop only when " +
    "needed and waits for the state; `pulumi refresh` shows drift; destroy leaves the service as it is, " +
    "or stops it with `onDestroy: stop`. Import id: the service id, or `organizationId/serviceId`.",
  ReversePrivateEndpointDeletion:
    "Deletes a service's reverse private endpoint when this resource is destroyed (creating it deletes " +
    "nothing). Import id: `organizationId/serviceId/reversePrivateEndpointId`.",
};

export const CONFIG_DESCRIPTIONS: Record<string, string> = {
  apiUrl: "Base URL of the management API, without `/v1`.",
  apiKeyId: "API key id.",
  apiKeySecret: "API key secret.",
  organizationId: "Default organization of the resources and of `getService` (a uuid).",
  rateLimit: "Client-side request budget, such as `10/10s` (the default), or `off`.",
  rateLimitStore:
    "A Redis URL (`redis://[user:password@]host:port[/db]`, `rediss://` for TLS) where every machine on the key " +
    "keeps one budget; default none (the budget of this machine).",
};

export const GET_SERVICE_DESCRIPTION =
  "Reads one service: every field the API returns. Secret-looking fields (`encryptionKey`, and " +
  "credential-like fields the API adds later) are returned as secrets.";
