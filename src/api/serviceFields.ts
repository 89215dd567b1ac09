import type { IpAccessListEntry, Service, ServiceEndpoint } from "./serviceTypes";

/*
 * Each field of a Service and of its object types: the kind the response schemas parse it as, and the
 * description the plugin's schema shows. Typed from `Service`: a field's entry must follow its type.
 */

export type Kinds = {
  string: string;
  number: number;
  boolean: boolean;
  "string[]": string[];
  "ServiceEndpoint[]": ServiceEndpoint[];
  "IpAccessListEntry[]": IpAccessListEntry[];
};
type KindOf<T> = { [K in keyof Kinds]: [T] extends [Kinds[K]] ? K : never }[keyof Kinds];
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
