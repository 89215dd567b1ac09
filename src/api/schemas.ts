import { z } from "zod";

/*
 * Response schemas. Each is built inside a function: a zod object held at module level and
 * reached from a serialized provider breaks Pulumi's closure serialization.
 * Unknown fields pass through (the real service sends more than the spec lists), `null` is
 * accepted wherever the real service may send it, and `state` stays a plain string: it is
 * classified by the resources, so a new state is not a parse error.
 */

export function serviceEndpointSchema() {
  return z.looseObject({
    protocol: z.string().nullish(),
    host: z.string().nullish(),
    port: z.number().nullish(),
    username: z.string().nullish(),
  });
}

export function ipAccessListEntrySchema() {
  return z.looseObject({
    source: z.string().nullish(),
    description: z.string().nullish(),
  });
}

export function serviceSchema() {
  return z.looseObject({
    id: z.string().nullish(),
    name: z.string().nullish(),
    provider: z.string().nullish(),
    region: z.string().nullish(),
    state: z.string().nullish(),
    databaseVersion: z.string().nullish(),
    endpoints: z.array(serviceEndpointSchema()).nullish(),
    ipAccessList: z.array(ipAccessListEntrySchema()).nullish(),
    tier: z.string().nullish(),
    idleScaling: z.boolean().nullish(),
    idleTimeoutMinutes: z.number().nullish(),
    numReplicas: z.number().nullish(),
    createdAt: z.string().nullish(),
  });
}

/** `{status, requestId, result}`; `result` absent for the delete operation. */
export function successEnvelopeSchema<T extends z.ZodType>(result: T) {
  return z.looseObject({ status: z.number(), requestId: z.string().nullish(), result });
}

export function deleteEnvelopeSchema() {
  return z.looseObject({ status: z.number(), requestId: z.string().nullish() });
}

/** `{status, error, requestId?}`: lenient, it only feeds error messages. */
export function errorEnvelopeSchema() {
  return z.looseObject({
    status: z.number().nullish(),
    error: z.string().nullish(),
    requestId: z.string().nullish(),
  });
}

export type ServiceEndpoint = z.infer<ReturnType<typeof serviceEndpointSchema>>;
export type IpAccessListEntry = z.infer<ReturnType<typeof ipAccessListEntrySchema>>;
export type Service = z.infer<ReturnType<typeof serviceSchema>>;

/** Formats zod issues as `<path>: <message>` lines. */
export function formatIssues(error: z.ZodError): string[] {
  return error.issues.map(
    (issue) => `${issue.path.length ? issue.path.join(".") : "(root)"}: ${issue.message}`,
  );
}
