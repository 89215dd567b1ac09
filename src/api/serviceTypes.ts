// Unlisted fields pass through untyped: an index signature would spoil an `Output<Service>`'s lifted types.

/** Open: a value the API adds later is accepted as any string, while editors still offer the known ones. */
export type OpenString = string & {};

/** Cloud provider of a service. */
export type CloudProvider = "aws" | "gcp" | "azure" | OpenString;
/** Region of a service. */
export type ServiceRegion =
  | "ap-northeast-1"
  | "ap-south-1"
  | "ap-southeast-1"
  | "ap-southeast-2"
  | "eu-central-1"
  | "eu-west-1"
  | "eu-west-2"
  | "me-central-1"
  | "us-east-1"
  | "us-east-2"
  | "us-west-2"
  | "us-east1"
  | "us-central1"
  | "europe-west4"
  | "asia-southeast1"
  | "eastus"
  | "eastus2"
  | "westus3"
  | "germanywestcentral"
  | OpenString;
/** State of a service; `ServiceRunState` classifies it (see the README's table). */
export type ServiceState =
  | "starting"
  | "stopping"
  | "terminating"
  | "awaking"
  | "partially_running"
  | "provisioning"
  | "running"
  | "stopped"
  | "terminated"
  | "degraded"
  | "failed"
  | "idle"
  | "softdeleting"
  | "softdeleted"
  | OpenString;
/** Tier of a service (deprecated by the API for newer organization tiers). */
export type ServiceTier =
  | "development"
  | "production"
  | "dedicated_high_mem"
  | "dedicated_high_cpu"
  | "dedicated_standard"
  | "dedicated_standard_n2d_standard_4"
  | "dedicated_standard_n2d_standard_8"
  | "dedicated_standard_n2d_standard_32"
  | "dedicated_standard_n2d_standard_128"
  | "dedicated_standard_n2d_standard_32_16SSD"
  | "dedicated_standard_n2d_standard_64_24SSD"
  | OpenString;
/** Release channel: `fast` gets releases first, `slow` later, `default` the regular channel. */
export type ReleaseChannel = "slow" | "default" | "fast" | OpenString;
/** Custom instance profile (ENTERPRISE organization tiers only). */
export type ServiceProfile =
  | "v1-default"
  | "v1-highmem-xs"
  | "v1-highmem-s"
  | "v1-highmem-m"
  | "v1-highmem-l"
  | "v1-highmem-xl"
  | "v1-highcpu-s"
  | "v1-highcpu-m"
  | "v1-highcpu-l"
  | "v1-highcpu-xl"
  | OpenString;
/** Regulatory compliance type. */
export type ComplianceType = "hipaa" | "pci" | OpenString;
/** Protocol of a service endpoint. */
export type EndpointProtocol = "https" | "nativesecure" | "mysql" | OpenString;

/** One endpoint of a service: protocol, host, port and optional username. */
export interface ServiceEndpoint {
  /** Endpoint protocol. */ protocol?: EndpointProtocol | null;
  /** Service host name. */ host?: string | null;
  /** Numeric port. */ port?: number | null;
  /** Optional username for the endpoint. */ username?: string | null;
}

/** One entry of a service's IP access list. */
export interface IpAccessListEntry {
  /** IP address or CIDR. */ source?: string | null;
  /** Optional description of the address or CIDR. */ description?: string | null;
}

/** A service as the API returns it: every field of the spec (parsed: `null` when not sent). */
export interface Service {
  /** Unique service id (a uuid). */ id?: string | null;
  /** Service name: alphanumeric with whitespace, up to 50 characters. */ name?: string | null;
  /** Cloud provider. */ provider?: CloudProvider | null;
  /** Service region. */ region?: ServiceRegion | null;
  /** Current state. */ state?: ServiceState | null;
  /** Database engine version of the service. */ databaseVersion?: string | null;
  /** All service endpoints. */ endpoints?: ServiceEndpoint[] | null;
  /** Deprecated by the API. */ tier?: ServiceTier | null;
  /** Deprecated by the API. */ minTotalMemoryGb?: number | null;
  /** Deprecated by the API. */ maxTotalMemoryGb?: number | null;
  /** Least replica memory when scaling, GB (8-356, multiple of 4). */ minReplicaMemoryGb?: number | null;
  /** Most replica memory when scaling, GB (8-356, multiple of 4). */ maxReplicaMemoryGb?: number | null;
  /** Number of replicas (1 to 20). */ numReplicas?: number | null;
  /** When true the service may scale down to zero when idle. */ idleScaling?: boolean | null;
  /** Minimum idling timeout, in minutes (at least 5). */ idleTimeoutMinutes?: number | null;
  /** IP addresses allowed to access the service. */ ipAccessList?: IpAccessListEntry[] | null;
  /** ISO 8601 date-time. */ createdAt?: string | null;
  /** Customer-provided disk encryption key: a secret. */ encryptionKey?: string | null;
  /** Optional role used for disk encryption. */ encryptionAssumedRoleIdentifier?: string | null;
  /** IAM role used for accessing objects in object storage. */ iamRole?: string | null;
  /** Private endpoints of the service. */ privateEndpointIds?: string[] | null;
  /** Private endpoint ids the service can attach. */ availablePrivateEndpointIds?: string[] | null;
  /** Data warehouse that contains this service. */ dataWarehouseId?: string | null;
  /** True if this is the primary service in the data warehouse. */ isPrimary?: boolean | null;
  /** True if read-only (only with a dataWarehouseId). */ isReadonly?: boolean | null;
  /** Release channel (production services only). */ releaseChannel?: ReleaseChannel | null;
  /** Id of a Bring Your Own Cloud region setup. */ byocId?: string | null;
  /** True if Transparent Data Encryption is enabled. */ hasTransparentDataEncryption?: boolean | null;
  /** Custom instance profile. */ profile?: ServiceProfile | null;
  /** Id of the TDE key (only with TDE enabled). */ transparentDataEncryptionKeyId?: string | null;
  /** Id of the IAM role used for encryption (only with TDE enabled). */ encryptionRoleId?: string | null;
  /** Type of regulatory compliance. */ complianceType?: ComplianceType | null;
}
