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
    ipAccessList: z.array(ipAccessListEntrySchema()).nullish(),
    tier: z.string().nullish(),
    idleScaling: z.boolean().nullish(),
    idleTimeoutMinutes: z.number().nullish(),
    numReplicas: z.number().nullish(),
    createdAt: z.string().nullish(),
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

export type ServiceEndpoint = z.infer<ReturnType<typeof serviceEndpointSchema>>;
export type IpAccessListEntry = z.infer<ReturnType<typeof ipAccessListEntrySchema>>;
export type Service = z.infer<ReturnType<typeof serviceSchema>>;

/** Formats zod issues as `<path>: <message>` lines. */
export function formatIssues(error: z.ZodError): string[] {
  return error.issues.map(
    (issue) => `${issue.path.length ? issue.path.join(".") : "(root)"}: ${issue.message}`,
  );
}
