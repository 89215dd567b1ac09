import { z } from "zod";
import { once } from "./once";
import { put } from "./redact";

/*
 * Response schemas. Unknown fields pass through (the real service sends more than the spec
 * lists), `null` is accepted wherever the real service may send it, and `state` stays a plain
 * string: it is classified by the resources, so a new state is not a parse error.
 *
 * A Service is checked by hand-written code rather than by zod: the zod schema (a pipe per
 * nullable field) cost 30 to 40 us of a loopback read's 400, the largest part of the client's
 * overhead over a raw GET (`bench/overhead.ts`, P1 of `npm run bench`). Each record type's check
 * builds its copy as one object literal typed from the interface below (`recordCheck`), so a
 * field left out, or checked as the wrong kind, does not compile.
 */

/** A checked response: the value, normalised, or the problems found (`<path>: <message>` lines). */
export type Checked<T> = { success: true; data: T } | { success: false; issues: string[] };

/** What the client asks of a response schema. */
export interface ResponseSchema<T> {
  safeParse(value: unknown): Checked<T>;
  /** The value, or throws a TypeError listing the problems. */
  parse(value: unknown): T;
}

/** More problems than this in one answer are counted, not listed (a hostile body can hold many). */
export const MAX_ISSUES = 20;

/** Collects problems, keeping the first `MAX_ISSUES`. */
class Issues {
  readonly lines: string[] = [];
  count = 0;
  add(path: string, message: string): void {
    if (this.count++ < MAX_ISSUES) this.lines.push(`${path || "(root)"}: ${message}`);
  }
  list(): string[] {
    return this.count > MAX_ISSUES
      ? [...this.lines, `and ${this.count - MAX_ISSUES} more problems`]
      : this.lines;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** What a value is, for a problem's message (a number that JSON cannot hold is named). */
const describe = (value: unknown): string =>
  value === null
    ? "null"
    : Array.isArray(value)
      ? "array"
      : typeof value === "number" && !Number.isFinite(value)
        ? String(value)
        : typeof value;

const at = (path: string, key: string | number): string => (path ? `${path}.${key}` : String(key));

/**
 * Where a field is checked: its record's path (joined with the key only for a problem) and the
 * problems found so far.
 */
interface Here {
  path: string;
  issues: Issues;
}

/** Notes that the field `key` is not of the kind `expected`; the value is kept (the answer is rejected). */
function mismatch(value: unknown, expected: string, here: Here, key: string | number): never {
  here.issues.add(at(here.path, key), `expected ${expected}, received ${describe(value)}`);
  return value as never;
}

/*
 * Each check takes a field's value as sent: null when absent or null, the value when of its
 * kind, otherwise a problem.
 */

function str(value: unknown, here: Here, key: string): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === "string" ? value : mismatch(value, "string", here, key);
}

function num(value: unknown, here: Here, key: string): number | null {
  if (value === undefined || value === null) return null;
  // False for anything but a finite number.
  return Number.isFinite(value) ? (value as number) : mismatch(value, "number", here, key);
}

function bool(value: unknown, here: Here, key: string): boolean | null {
  if (value === undefined || value === null) return null;
  return typeof value === "boolean" ? value : mismatch(value, "boolean", here, key);
}

/** A list of strings, copied. */
function strings(value: unknown, here: Here, key: string): string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) return mismatch(value, "array", here, key);
  const inList = { path: at(here.path, key), issues: here.issues };
  return value.map((item, i) => (typeof item === "string" ? item : mismatch(item, "string", inList, i)));
}

/** A list of records, each checked by `record`: copies, never the lists or records sent. */
function records<T>(value: unknown, here: Here, key: string, record: RecordCheck<T>): T[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) return mismatch(value, "array", here, key);
  const path = at(here.path, key);
  return value.map((item, i) => record(item, at(path, i), here.issues));
}

/** Checks a record at `path`: a copy with every field of its type present. */
type RecordCheck<T> = (value: unknown, path: string, issues: Issues) => T;

/**
 * The check of a record type from `fields`, which builds its copy as one object literal: every
 * field of the type present (the literal's type is `Required<T>`, so a field left out, or checked
 * as the wrong kind, does not compile), then the fields it does not know, as sent.
 *
 * One literal, with each field read by name, costs a fraction of a walk over a table of kinds
 * (keyed reads and writes, a property added at a time): a Service is read on every poll and
 * refresh (`bench/overhead.ts`, P1 of `npm run bench`).
 */
function recordCheck<T>(fields: (value: Record<string, unknown>, here: Here) => Required<T>): RecordCheck<T> {
  // The type's fields: those of the copy of an empty record (every field null: no problem, no path).
  // Stryker disable next-line StringLiteral: the path only names a problem, and an empty record has none: equivalent
  const known = new Set(Object.keys(fields({}, { path: "", issues: new Issues() })));
  return (value, path, issues) => {
    if (!isRecord(value)) {
      issues.add(path, `expected object, received ${describe(value)}`);
      return {} as T;
    }
    const out: Record<string, unknown> = fields(value, { path, issues });
    for (const key of Object.keys(value)) if (!known.has(key)) put(out, key, value[key]);
    return out as T;
  };
}

function responseSchema<T>(check: (value: unknown, issues: Issues) => T): ResponseSchema<T> {
  const safeParse = (value: unknown): Checked<T> => {
    const issues = new Issues();
    const data = check(value, issues);
    return issues.count ? { success: false, issues: issues.list() } : { success: true, data };
  };
  return {
    safeParse,
    parse: (value) => {
      const checked = safeParse(value);
      if (!checked.success) throw new TypeError(checked.issues.join("; "));
      return checked.data;
    },
  };
}

const checkEndpoint = recordCheck<ServiceEndpoint>((v, here) => ({
  protocol: str(v.protocol, here, "protocol"),
  host: str(v.host, here, "host"),
  port: num(v.port, here, "port"),
  username: str(v.username, here, "username"),
}));

const checkIpEntry = recordCheck<IpAccessListEntry>((v, here) => ({
  source: str(v.source, here, "source"),
  description: str(v.description, here, "description"),
}));

const checkService = recordCheck<Service>((v, here) => ({
  id: str(v.id, here, "id"),
  name: str(v.name, here, "name"),
  provider: str(v.provider, here, "provider"),
  region: str(v.region, here, "region"),
  state: str(v.state, here, "state"),
  databaseVersion: str(v.databaseVersion, here, "databaseVersion"),
  endpoints: records(v.endpoints, here, "endpoints", checkEndpoint),
  tier: str(v.tier, here, "tier"),
  minTotalMemoryGb: num(v.minTotalMemoryGb, here, "minTotalMemoryGb"),
  maxTotalMemoryGb: num(v.maxTotalMemoryGb, here, "maxTotalMemoryGb"),
  minReplicaMemoryGb: num(v.minReplicaMemoryGb, here, "minReplicaMemoryGb"),
  maxReplicaMemoryGb: num(v.maxReplicaMemoryGb, here, "maxReplicaMemoryGb"),
  numReplicas: num(v.numReplicas, here, "numReplicas"),
  idleScaling: bool(v.idleScaling, here, "idleScaling"),
  idleTimeoutMinutes: num(v.idleTimeoutMinutes, here, "idleTimeoutMinutes"),
  ipAccessList: records(v.ipAccessList, here, "ipAccessList", checkIpEntry),
  createdAt: str(v.createdAt, here, "createdAt"),
  encryptionKey: str(v.encryptionKey, here, "encryptionKey"),
  encryptionAssumedRoleIdentifier: str(
    v.encryptionAssumedRoleIdentifier,
    here,
    "encryptionAssumedRoleIdentifier",
  ),
  iamRole: str(v.iamRole, here, "iamRole"),
  privateEndpointIds: strings(v.privateEndpointIds, here, "privateEndpointIds"),
  availablePrivateEndpointIds: strings(v.availablePrivateEndpointIds, here, "availablePrivateEndpointIds"),
  dataWarehouseId: str(v.dataWarehouseId, here, "dataWarehouseId"),
  isPrimary: bool(v.isPrimary, here, "isPrimary"),
  isReadonly: bool(v.isReadonly, here, "isReadonly"),
  releaseChannel: str(v.releaseChannel, here, "releaseChannel"),
  byocId: str(v.byocId, here, "byocId"),
  hasTransparentDataEncryption: bool(v.hasTransparentDataEncryption, here, "hasTransparentDataEncryption"),
  profile: str(v.profile, here, "profile"),
  transparentDataEncryptionKeyId: str(
    v.transparentDataEncryptionKeyId,
    here,
    "transparentDataEncryptionKeyId",
  ),
  encryptionRoleId: str(v.encryptionRoleId, here, "encryptionRoleId"),
  complianceType: str(v.complianceType, here, "complianceType"),
}));

/** One endpoint of a Service: every field of the spec present, null when not sent. */
export const serviceEndpointSchema = once(() =>
  responseSchema<ServiceEndpoint>((value, issues) => checkEndpoint(value, "", issues)),
);

/** One IP access list entry of a Service: every field of the spec present, null when not sent. */
export const ipAccessListEntrySchema = once(() =>
  responseSchema<IpAccessListEntry>((value, issues) => checkIpEntry(value, "", issues)),
);

/** A Service: every field of the spec present, null when not sent; unknown fields as sent. */
export const serviceSchema = once(() =>
  responseSchema<Service>((value, issues) => checkService(value, "", issues)),
);

/** `{status, requestId, result}` with a Service: the answer of the state-change and read operations. */
export interface ServiceEnvelope {
  status: number;
  requestId: string | null;
  result: Service;
}

/** `{status, requestId, result}`: a numeric status, a string or null request id, and a Service. */
const checkEnvelope = recordCheck<ServiceEnvelope>((v, here) => {
  const status = num(v.status, here, "status");
  const requestId = str(v.requestId, here, "requestId");
  if (status === null) here.issues.add(at(here.path, "status"), "required");
  return {
    status: status as number,
    requestId,
    result: checkService(v.result, at(here.path, "result"), here.issues),
  };
});

export const serviceEnvelopeSchema = once(() =>
  responseSchema<ServiceEnvelope>((value, issues) => checkEnvelope(value, "", issues)),
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
 * is optional in the type (as in the spec) and nullable; a parsed Service has every field of the
 * spec present, `null` when the API left it out, so no value is `undefined` (the engine rejects
 * it in outputs). Fields the spec does not list pass through at run time, untyped (an index
 * signature would spoil the types of an `Output<Service>`'s lifted properties).
 */

/** A value the API may add later: any string, while editors still offer the known ones. */
export type OpenString = string & {};

/** Cloud provider of a service. Open: values the API adds later are accepted. */
export type CloudProvider = "aws" | "gcp" | "azure" | OpenString;
/** Region of a service. Open: values the API adds later are accepted. */
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
/** State of a service; `ServiceRunState` classifies it (see the README's table). Open: values the API adds later are accepted. */
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
/** Tier of a service (deprecated by the API for newer organization tiers). Open: values the API adds later are accepted. */
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
/** Release channel: `fast` gets releases first, `slow` later, `default` the regular channel. Open: values the API adds later are accepted. */
export type ReleaseChannel = "slow" | "default" | "fast" | OpenString;
/** Custom instance profile (ENTERPRISE organization tiers only). Open: values the API adds later are accepted. */
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
/** Regulatory compliance type. Open: values the API adds later are accepted. */
export type ComplianceType = "hipaa" | "pci" | OpenString;
/** Protocol of a service endpoint. Open: values the API adds later are accepted. */
export type EndpointProtocol = "https" | "nativesecure" | "mysql" | OpenString;

/** One endpoint of a service: protocol, host, port and optional username. */
export interface ServiceEndpoint {
  /** Endpoint protocol. */
  protocol?: EndpointProtocol | null;
  /** Service host name. */
  host?: string | null;
  /** Numeric port. */
  port?: number | null;
  /** Optional username for the endpoint. */
  username?: string | null;
}

/** One entry of a service's IP access list. */
export interface IpAccessListEntry {
  /** IP address or CIDR. */
  source?: string | null;
  /** Optional description of the address or CIDR. */
  description?: string | null;
}

/** A service as the API returns it: every field of the spec (parsed: `null` when not sent). */
export interface Service {
  /** Unique service id (a uuid). */
  id?: string | null;
  /** Service name: alphanumeric with whitespace, up to 50 characters. */
  name?: string | null;
  /** Cloud provider. */
  provider?: CloudProvider | null;
  /** Service region. */
  region?: ServiceRegion | null;
  /** Current state. */
  state?: ServiceState | null;
  /** Database engine version of the service. */
  databaseVersion?: string | null;
  /** All service endpoints. */
  endpoints?: ServiceEndpoint[] | null;
  /** Deprecated by the API. */
  tier?: ServiceTier | null;
  /** Deprecated by the API. */
  minTotalMemoryGb?: number | null;
  /** Deprecated by the API. */
  maxTotalMemoryGb?: number | null;
  /** Minimum total memory of each replica during auto-scaling, in GB (8 to 356, multiple of 4). */
  minReplicaMemoryGb?: number | null;
  /** Maximum total memory of each replica during auto-scaling, in GB (8 to 356, multiple of 4). */
  maxReplicaMemoryGb?: number | null;
  /** Number of replicas (1 to 20). */
  numReplicas?: number | null;
  /** When true the service may scale down to zero when idle. */
  idleScaling?: boolean | null;
  /** Minimum idling timeout, in minutes (at least 5). */
  idleTimeoutMinutes?: number | null;
  /** IP addresses allowed to access the service. */
  ipAccessList?: IpAccessListEntry[] | null;
  /** ISO 8601 date-time. */
  createdAt?: string | null;
  /** Customer-provided disk encryption key: a secret. */
  encryptionKey?: string | null;
  /** Optional role used for disk encryption. */
  encryptionAssumedRoleIdentifier?: string | null;
  /** IAM role used for accessing objects in object storage. */
  iamRole?: string | null;
  /** Private endpoints of the service. */
  privateEndpointIds?: string[] | null;
  /** Private endpoint ids that can be attached to the service. */
  availablePrivateEndpointIds?: string[] | null;
  /** Data warehouse that contains this service. */
  dataWarehouseId?: string | null;
  /** True if this is the primary service in the data warehouse. */
  isPrimary?: boolean | null;
  /** True if read-only (only with a dataWarehouseId). */
  isReadonly?: boolean | null;
  /** Release channel (production services only). */
  releaseChannel?: ReleaseChannel | null;
  /** Id of a Bring Your Own Cloud region setup. */
  byocId?: string | null;
  /** True if Transparent Data Encryption is enabled. */
  hasTransparentDataEncryption?: boolean | null;
  /** Custom instance profile. */
  profile?: ServiceProfile | null;
  /** Id of the TDE key (only with TDE enabled). */
  transparentDataEncryptionKeyId?: string | null;
  /** Id of the IAM role used for encryption (only with TDE enabled). */
  encryptionRoleId?: string | null;
  /** Type of regulatory compliance. */
  complianceType?: ComplianceType | null;
}
