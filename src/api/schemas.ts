import { z } from "zod";
import { once } from "./once";

/*
 * Response schemas. Unknown fields pass through (the real service sends more than the spec
 * lists), `null` is accepted wherever the real service may send it, and `state` stays a plain
 * string: it is classified by the resources, so a new state is not a parse error.
 *
 * A Service is checked by a walk over a table of its fields' kinds rather than by zod: the zod
 * schema (a pipe per nullable field) cost 30 to 40 us of a loopback read's 400, the largest part
 * of the client's overhead over a raw GET (`bench/overhead.ts`, P1 of `npm run bench`); the walk
 * costs a few. The tables are typed from the `Service` interface below, so a field missing from
 * them, or of the wrong kind, does not compile.
 */

/** A checked response: the value, normalised, or the problems found (`<path>: <message>` lines). */
export type Checked<T> = { success: true; data: T } | { success: false; issues: string[] };

/** What the client asks of a response schema. */
export interface ResponseSchema<T> {
  safeParse(value: unknown): Checked<T>;
  /** The value, or throws a TypeError listing the problems. */
  parse(value: unknown): T;
}

/** The kind of one field: a scalar, a list of strings, or a list of records (their table). */
type Scalar = "string" | "number" | "boolean" | "strings";
type Kind = Scalar | readonly [Fields];
interface Fields {
  readonly [name: string]: Kind;
}

/** The table of a record type: every field, of the kind its type says. */
type KindsOf<T> = { readonly [K in keyof Required<T>]: KindOf<NonNullable<T[K]>> };
type KindOf<V> = [V] extends [string]
  ? "string"
  : [V] extends [number]
    ? "number"
    : [V] extends [boolean]
      ? "boolean"
      : [V] extends [readonly string[]]
        ? "strings"
        : V extends readonly (infer E)[]
          ? readonly [KindsOf<E>]
          : never;

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

/** Sets `key` as an own data property: a `__proto__` key from JSON stays a field, never a prototype. */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  // Stryker disable next-line ConditionalExpression: defining every key gives the same object, only slower: equivalent
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** `value` checked against `kind`; `key` under `path` names it in a problem (joined only then). */
function checkValue(
  value: unknown,
  kind: TableKind,
  path: string,
  key: string | number,
  issues: Issues,
): unknown {
  if (kind === "string" || kind === "boolean") {
    if (typeof value === kind) return value;
  } else if (kind === "number") {
    if (Number.isFinite(value)) return value; // false for anything but a finite number
  } else if (Array.isArray(value)) {
    const here = at(path, key);
    return value.map((item, i) =>
      kind === "strings"
        ? checkValue(item, "string", here, i, issues)
        : checkRecord(item, kind[0], at(here, i), issues),
    );
  } else {
    issues.add(at(path, key), `expected array, received ${describe(value)}`);
    return value;
  }
  issues.add(at(path, key), `expected ${kind}, received ${describe(value)}`);
  return value;
}

/**
 * A table of kinds as arrays, made once when the module loads (a for-in over the table on every
 * record cost more); a list of records holds its records' table.
 */
interface Table {
  keys: string[];
  kinds: TableKind[];
  known: Set<string>;
}
type TableKind = Scalar | readonly [Table];

function table(fields: Fields): Table {
  const keys = Object.keys(fields);
  const kinds = keys.map((key) => {
    const kind = fields[key];
    return typeof kind === "string" ? kind : ([table(kind[0])] as const);
  });
  return { keys, kinds, known: new Set(keys) };
}

/**
 * A copy of a record with every field of the table present (null when absent or null, checked
 * otherwise), then the fields the table does not know, as sent.
 */
function checkRecord(
  value: unknown,
  { keys, kinds, known }: Table,
  path: string,
  issues: Issues,
): Record<string, unknown> {
  if (!isRecord(value)) {
    issues.add(path, `expected object, received ${describe(value)}`);
    return {};
  }
  const out: Record<string, unknown> = {};
  for (let i = 0; i < keys.length; i++) {
    const field = value[keys[i]];
    out[keys[i]] =
      field === undefined || field === null ? null : checkValue(field, kinds[i], path, keys[i], issues);
  }
  for (const key of Object.keys(value)) if (!known.has(key)) put(out, key, value[key]);
  return out;
}

function responseSchema<T>(check: (value: unknown, issues: Issues) => unknown): ResponseSchema<T> {
  const safeParse = (value: unknown): Checked<T> => {
    const issues = new Issues();
    const data = check(value, issues) as T;
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

const ENDPOINT_FIELDS: KindsOf<ServiceEndpoint> = {
  protocol: "string",
  host: "string",
  port: "number",
  username: "string",
};

const IP_ENTRY_FIELDS: KindsOf<IpAccessListEntry> = { source: "string", description: "string" };

const SERVICE_FIELDS: KindsOf<Service> = {
  id: "string",
  name: "string",
  provider: "string",
  region: "string",
  state: "string",
  databaseVersion: "string",
  endpoints: [ENDPOINT_FIELDS],
  tier: "string",
  minTotalMemoryGb: "number",
  maxTotalMemoryGb: "number",
  minReplicaMemoryGb: "number",
  maxReplicaMemoryGb: "number",
  numReplicas: "number",
  idleScaling: "boolean",
  idleTimeoutMinutes: "number",
  ipAccessList: [IP_ENTRY_FIELDS],
  createdAt: "string",
  encryptionKey: "string",
  encryptionAssumedRoleIdentifier: "string",
  iamRole: "string",
  privateEndpointIds: "strings",
  availablePrivateEndpointIds: "strings",
  dataWarehouseId: "string",
  isPrimary: "boolean",
  isReadonly: "boolean",
  releaseChannel: "string",
  byocId: "string",
  hasTransparentDataEncryption: "boolean",
  profile: "string",
  transparentDataEncryptionKeyId: "string",
  encryptionRoleId: "string",
  complianceType: "string",
};

const ENDPOINT = table(ENDPOINT_FIELDS);
const IP_ENTRY = table(IP_ENTRY_FIELDS);
const SERVICE = table(SERVICE_FIELDS);

/** One endpoint of a Service: every field of the spec present, null when not sent. */
export const serviceEndpointSchema = once(() =>
  responseSchema<ServiceEndpoint>((value, issues) => checkRecord(value, ENDPOINT, "", issues)),
);

/** One IP access list entry of a Service: every field of the spec present, null when not sent. */
export const ipAccessListEntrySchema = once(() =>
  responseSchema<IpAccessListEntry>((value, issues) => checkRecord(value, IP_ENTRY, "", issues)),
);

/** A Service: every field of the spec present, null when not sent; unknown fields as sent. */
export const serviceSchema = once(() =>
  responseSchema<Service>((value, issues) => checkRecord(value, SERVICE, "", issues)),
);

/** `{status, requestId, result}` with a Service: the answer of the state-change and read operations. */
export interface ServiceEnvelope {
  status: number;
  requestId: string | null;
  result: Service;
}

/** The envelope's own scalar fields (its `result` is checked as a Service). */
const ENVELOPE = table({ status: "number", requestId: "string" });

/** `{status, requestId, result}`: a numeric status, a string or null request id, and a Service. */
export const serviceEnvelopeSchema = once(() =>
  responseSchema<ServiceEnvelope>((value, issues) => {
    const out = checkRecord(value, ENVELOPE, "", issues);
    if (isRecord(value)) {
      if (value.status === undefined || value.status === null) issues.add("status", "required");
      out.result = checkRecord(value.result, SERVICE, "result", issues);
    }
    return out;
  }),
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
 * The zod output above must stay assignable to these (checked at the end of this file).
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
