import * as pulumi from "@pulumi/pulumi";
import { ResponseValidationError } from "../api/errors";
import type { Service } from "../api/schemas";
import { apiClientFor, resolveConfig } from "../config";
import { programOrganizationId, programStackConfig } from "./programDefaults";

/*
 * `getService` / `getServiceOutput`: the read as a Pulumi function, run in the program's process
 * with the providers' settings. The client is built per call and dropped: nothing holding the key
 * secret is kept or captured.
 */

/** Arguments of `getService`: plain values. */
export interface GetServiceArgs {
  /** Default: stack config `dbcloud:organizationId`, then `DBCLOUD_ORGANIZATION_ID`. */
  organizationId?: string;
  /** The service (a uuid). */
  serviceId: string;
}

/** Arguments of `getServiceOutput`: values or Outputs (e.g. another resource's `serviceId`). */
export interface GetServiceOutputArgs {
  /** Default: stack config `dbcloud:organizationId`, then `DBCLOUD_ORGANIZATION_ID`. */
  organizationId?: pulumi.Input<string>;
  /** The service (a uuid). */
  serviceId: pulumi.Input<string>;
}

/** Fields of the spec that hold a secret. */
export const SECRET_SERVICE_FIELDS: readonly string[] = ["encryptionKey"];

/** Names that look like a credential, for fields the API adds later (at any depth). */
const CREDENTIAL_NAME = /password|passwd|secret|token|credential|private_?key|api_?key|encryption_?key/i;

/** The deepest nesting a service read may have: Pulumi's own walk over an Output's value recurses. */
export const MAX_SERVICE_DEPTH = 100;

/** Whether the service carries a secret value, and how deep it nests. Iterative: network data may nest at any depth. */
export function inspectService(service: unknown): { holdsSecret: boolean; depth: number } {
  const pending: { value: unknown; name: string; depth: number }[] = [{ value: service, name: "", depth: 0 }];
  let holdsSecret = false;
  let depth = 0;
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value, name } = next;
    depth = Math.max(depth, next.depth);
    if (value === null || value === undefined || value === "") continue;
    if (typeof value === "object") {
      const entries = Array.isArray(value)
        ? value.map((item) => [name, item] as const)
        : Object.entries(value);
      for (const [key, item] of entries) pending.push({ value: item, name: key, depth: next.depth + 1 });
    } else if (SECRET_SERVICE_FIELDS.includes(name) || CREDENTIAL_NAME.test(name)) holdsSecret = true;
  }
  return { holdsSecret, depth };
}

/** Whether the service carries a secret value: a known secret field or a credential-like name, set. */
export function holdsSecret(service: unknown): boolean {
  return inspectService(service).holdsSecret;
}

/**
 * Reads one service (GET) through the shared client: rate budget, retries, typed errors. Resolves
 * to the service as the API returned it, every value in clear, `encryptionKey` included.
 */
export async function getService(args: GetServiceArgs): Promise<Service> {
  const config = resolveConfig(programStackConfig, process.env);
  const organizationId = args.organizationId || programOrganizationId("getService");
  const client = apiClientFor(config, (line) => pulumi.log.info(`[dbcloud] getService: ${line}`));
  const { service, requestId } = await client.getService(organizationId, args.serviceId);
  if (inspectService(service).depth > MAX_SERVICE_DEPTH) {
    throw new ResponseValidationError({
      status: 200,
      requestId,
      method: "GET",
      path: `/v1/organizations/${organizationId}/services/${args.serviceId}`,
      issues: [`(body): nests deeper than ${MAX_SERVICE_DEPTH} levels`],
    });
  }
  return service;
}

/**
 * `getService` as an Output. When the service carries a secret value (`encryptionKey`, or a
 * credential-like field the API adds later), the whole result is a secret Output.
 */
export function getServiceOutput(args: GetServiceOutputArgs): pulumi.Output<Service> {
  const read = pulumi.output(args).apply((resolved) => getService(resolved));
  // pulumi.secret/output of a Service unwrap to a structurally different type; it is a Service.
  return read.apply((service) =>
    holdsSecret(service) ? pulumi.secret(service) : pulumi.output(service),
  ) as unknown as pulumi.Output<Service>;
}
