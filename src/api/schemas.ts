import { z } from "zod";
import {
  ENDPOINT_FIELDS,
  IP_ACCESS_FIELDS,
  SERVICE_FIELDS,
  type FieldTable,
  type Kinds,
} from "./serviceFields";
import type { Service } from "./serviceTypes";

export type * from "./serviceTypes";

/*
 * Unknown fields pass through (the real service sends more than the spec lists), and `state` stays
 * a plain string: the resources classify it, so a new state is not a parse error.
 */

/** A checked response: the value, normalised, or the problems found (`<path>: <message>` lines). */
export type Checked<T> = { success: true; data: T } | { success: false; issues: string[] };

export type ResponseSchema<T> = { safeParse(value: unknown): Checked<T> };

/** More problems than this in one answer are counted, not listed (a hostile body can hold many). */
export const MAX_ISSUES = 20;

/** No list in a Service holds more: zod describes every wrong item, so a longer list is one problem. */
export const MAX_LIST_ITEMS = 10_000;

/** Absent or null reads as null, so a parsed record has every field of its type. */
const orNull = <T extends z.ZodType>(schema: T) => schema.nullable().default(null);
const str = () => orNull(z.string());
const list = <T extends z.ZodType>(item: T) =>
  orNull(z.array(z.unknown()).max(MAX_LIST_ITEMS).pipe(z.array(item)));

const KIND_SCHEMAS: Record<keyof Kinds, () => z.ZodType> = {
  string: str,
  number: () => orNull(z.number()),
  boolean: () => orNull(z.boolean()),
  "string[]": () => list(z.string()),
  "ServiceEndpoint[]": () => list(objectOf(ENDPOINT_FIELDS)),
  "IpAccessListEntry[]": () => list(objectOf(IP_ACCESS_FIELDS)),
};

/** A record with every field of `table`, each parsed as its kind. */
function objectOf<T>(table: FieldTable<T>): z.ZodType<T> {
  const fields = Object.entries<[keyof Kinds, string]>(table).map(([name, [kind]]) => [
    name,
    KIND_SCHEMAS[kind](),
  ]);
  return z.looseObject(Object.fromEntries(fields)) as unknown as z.ZodType<T>;
}

const service = objectOf(SERVICE_FIELDS);

const serviceEnvelope = z.looseObject({
  status: z.number({ error: (issue) => (issue.input == null ? "required" : undefined) }),
  requestId: str(),
  result: service,
});

/** What a value is, for a problem's message (a number that JSON cannot hold is named). */
function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value === "number" && !Number.isFinite(value) ? String(value) : typeof value;
}

/** Problems read `expected string, received number`; other kinds keep zod's own words. */
const parseOptions = {
  reportInput: true,
  error: (issue: z.core.$ZodRawIssue) =>
    issue.code === "invalid_type"
      ? `expected ${issue.expected}, received ${describe(issue.input)}`
      : undefined,
};

/** zod leaves an own `__proto__` key out of the records it builds: put back here as a field. */
function keepProtoFields(input: unknown, output: unknown): void {
  if (input === output || !input || !output || typeof input !== "object" || typeof output !== "object")
    return;
  const sent = input as Record<string, unknown>;
  const built = output as Record<string, unknown>;
  if (!Array.isArray(sent) && Object.hasOwn(sent, "__proto__")) {
    const field = { value: sent.__proto__, enumerable: true, writable: true, configurable: true };
    Object.defineProperty(built, "__proto__", field);
  }
  for (const key of Object.keys(built)) if (key !== "__proto__") keepProtoFields(sent[key], built[key]);
}

function responseSchema<T>(schema: z.ZodType<T>): ResponseSchema<T> {
  const safeParse = (value: unknown): Checked<T> => {
    const parsed = schema.safeParse(value, parseOptions);
    if (parsed.success) {
      keepProtoFields(value, parsed.data);
      return { success: true, data: parsed.data };
    }
    const lines = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`);
    const extra = lines.length - MAX_ISSUES;
    const issues = extra > 0 ? [...lines.slice(0, MAX_ISSUES), `and ${extra} more problems`] : lines;
    return { success: false, issues };
  };
  return { safeParse };
}

export const serviceSchema = responseSchema<Service>(service);
/** The answer of the read and state-change operations. */
export const serviceEnvelopeSchema = responseSchema(serviceEnvelope);
/** `{status, requestId?, result}` around a Service; unknown fields kept. */
export type ServiceEnvelope = z.infer<typeof serviceEnvelope>;
/** `{status, error, requestId?}`: lenient, it only feeds error messages. */
export const errorEnvelopeSchema = z.looseObject({
  status: z.number().nullish(),
  error: z.string().nullish(),
  requestId: z.string().nullish(),
});
