import { z } from "zod";
import { once } from "./once";

/*
 * Response schemas, each built once on first use (building them costs more than a loopback
 * request's parsing; the provider host reaches this module by package name, so nothing here is
 * captured by Pulumi's closure serializer). Unknown fields pass through (the real service sends more than the spec lists), `null` is
 * accepted wherever the real service may send it, and `state` stays a plain string: it is
 * classified by the resources, so a new state is not a parse error.
 */

export const serviceEndpointSchema = once(() =>
  z.looseObject({
    protocol: z.string().nullish(),
    host: z.string().nullish(),
    port: z.number().nullish(),
    username: z.string().nullish(),
  }),
);

export const ipAccessListEntrySchema = once(() =>
  z.looseObject({
    source: z.string().nullish(),
    description: z.string().nullish(),
  }),
);

export const serviceSchema = once(() =>
  z.looseObject({
    id: z.string().nullish(),
    name: z.string().nullish(),
    provider: z.string().nullish(),
    region: z.string().nullish(),
    state: z.string().nullish(),
    databaseVersion: z.string().nullish(),
    endpoints: z.array(serviceEndpointSchema()).nullish(),
    tier: z.string().nullish(),
    minTotalMemoryGb: z.number().nullish(),
    maxTotalMemoryGb: z.number().nullish(),
    minReplicaMemoryGb: z.number().nullish(),
    maxReplicaMemoryGb: z.number().nullish(),
    numReplicas: z.number().nullish(),
    idleScaling: z.boolean().nullish(),
    idleTimeoutMinutes: z.number().nullish(),
    ipAccessList: z.array(ipAccessListEntrySchema()).nullish(),
    createdAt: z.string().nullish(),
    encryptionKey: z.string().nullish(),
    encryptionAssumedRoleIdentifier: z.string().nullish(),
    iamRole: z.string().nullish(),
    privateEndpointIds: z.array(z.string()).nullish(),
    availablePrivateEndpointIds: z.array(z.string()).nullish(),
    dataWarehouseId: z.string().nullish(),
    isPrimary: z.boolean().nullish(),
    isReadonly: z.boolean().nullish(),
    releaseChannel: z.string().nullish(),
    byocId: z.string().nullish(),
    hasTransparentDataEncryption: z.boolean().nullish(),
    profile: z.string().nullish(),
    transparentDataEncryptionKeyId: z.string().nullish(),
    encryptionRoleId: z.string().nullish(),
    complianceType: z.string().nullish(),
  }),
);

/** `{status, requestId, result}` with a Service: the state-change and read operations. */
export const serviceEnvelopeSchema = once(() =>
  z.looseObject({ status: z.number(), requestId: z.string().nullish(), result: serviceSchema() }),
);

/** `{status, requestId}`: the delete operation has no `result`. */
export const deleteEnvelopeSchema = once(() =>
  z.looseObject({ status: z.number(), requestId: z.string().nullish() }),
);

/** `{status, error, requestId?}`: lenient, it only feeds error messages. */
export const errorEnvelopeSchema = once(() =>
  z.looseObject({
    status: z.number().nullish(),
    error: z.string().nullish(),
    requestId: z.string().nullish(),
  }),
);

/*
 * The types users see. Enumerations are unions of the spec's values that still accept a value
 * the API adds later (`(string & {})` keeps editor completion for the known ones); every field
 * may be absent or `null`, and fields the spec does not list pass through as `unknown`.
 * The zod output above must stay assignable to these (checked at the end of this file).
 */

/** A value the API may add later: any string, while editors still offer the known ones. */
export type OpenString = string & {};

export type CloudProvider = "aws" | "gcp" | "azure" | OpenString;
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
export type ReleaseChannel = "slow" | "default" | "fast" | OpenString;
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
export type ComplianceType = "hipaa" | "pci" | OpenString;
export type EndpointProtocol = "https" | "nativesecure" | "mysql" | OpenString;

export interface ServiceEndpoint {
  protocol?: EndpointProtocol | null;
  host?: string | null;
  port?: number | null;
  username?: string | null;
  [field: string]: unknown;
}

export interface IpAccessListEntry {
  /** IP address or CIDR. */
  source?: string | null;
  description?: string | null;
  [field: string]: unknown;
}

/** A service as the API returns it: every field of the spec, each optional and nullable. */
export interface Service {
  id?: string | null;
  name?: string | null;
  provider?: CloudProvider | null;
  region?: ServiceRegion | null;
  state?: ServiceState | null;
  databaseVersion?: string | null;
  endpoints?: ServiceEndpoint[] | null;
  /** Deprecated by the API. */
  tier?: ServiceTier | null;
  /** Deprecated by the API. */
  minTotalMemoryGb?: number | null;
  /** Deprecated by the API. */
  maxTotalMemoryGb?: number | null;
  minReplicaMemoryGb?: number | null;
  maxReplicaMemoryGb?: number | null;
  numReplicas?: number | null;
  idleScaling?: boolean | null;
  idleTimeoutMinutes?: number | null;
  ipAccessList?: IpAccessListEntry[] | null;
  /** ISO 8601 date-time. */
  createdAt?: string | null;
  /** Customer-provided disk encryption key: a secret. */
  encryptionKey?: string | null;
  encryptionAssumedRoleIdentifier?: string | null;
  iamRole?: string | null;
  privateEndpointIds?: string[] | null;
  availablePrivateEndpointIds?: string[] | null;
  dataWarehouseId?: string | null;
  isPrimary?: boolean | null;
  isReadonly?: boolean | null;
  releaseChannel?: ReleaseChannel | null;
  byocId?: string | null;
  hasTransparentDataEncryption?: boolean | null;
  profile?: ServiceProfile | null;
  transparentDataEncryptionKeyId?: string | null;
  encryptionRoleId?: string | null;
  complianceType?: ComplianceType | null;
  /** Fields the spec does not list (the API sends more). */
  [field: string]: unknown;
}

/** Compile-time check: what the schemas accept is a Service (and its parts). */
type Assignable<T extends U, U> = T;
export type _ServiceSchemaFits = Assignable<z.infer<ReturnType<typeof serviceSchema>>, Service>;
export type _EndpointSchemaFits = Assignable<
  z.infer<ReturnType<typeof serviceEndpointSchema>>,
  ServiceEndpoint
>;
export type _IpEntrySchemaFits = Assignable<
  z.infer<ReturnType<typeof ipAccessListEntrySchema>>,
  IpAccessListEntry
>;

/** Formats zod issues as `<path>: <message>` lines. */
export function formatIssues(error: z.ZodError): string[] {
  return error.issues.map(
    (issue) => `${issue.path.length ? issue.path.join(".") : "(root)"}: ${issue.message}`,
  );
}
