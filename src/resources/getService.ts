import * as pulumi from "@pulumi/pulumi";
import type { Service } from "../api/schemas";
import { apiClientFor } from "../config";
import { programOrganizationId, programStackConfig } from "./programDefaults";

/*
 * `getService` / `getServiceOutput`: the read as a Pulumi function, in the program's process with the
 * providers' settings; the client is built per call and dropped: nothing holding the secret is kept.
 */

/** Arguments of `getService`: plain values. */
export interface GetServiceArgs {
  /** Default: stack config `dbcloud:organizationId`, then `DBCLOUD_ORGANIZATION_ID`. */
  organizationId?: string;
  /** The service (a uuid). */
  serviceId: string;
}

/** Arguments of `getServiceOutput`: those of `getService`, each a value or an Output (e.g. a resource's `serviceId`). */
export type GetServiceOutputArgs = { [K in keyof GetServiceArgs]: pulumi.Input<GetServiceArgs[K]> };

/** Names that look like a credential: the spec's `encryptionKey`, and fields the API adds later (at any depth). */
const CREDENTIAL_NAME = /password|passwd|secret|token|credential|private_?key|api_?key|encryption_?key/i;

/** Whether a credential-like name is set, at any depth (iterative: network data). */
export function holdsSecret(service: unknown): boolean {
  const pending: { value: unknown; name: string }[] = [{ value: service, name: "" }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value, name } = next;
    if (value === null || value === undefined || value === "") continue;
    if (typeof value === "object") {
      const entries = Array.isArray(value)
        ? value.map((item) => [name, item] as const)
        : Object.entries(value);
      for (const [key, item] of entries) pending.push({ value: item, name: key });
    } else if (CREDENTIAL_NAME.test(name)) return true;
  }
  return false;
}

/**
 * Reads one service (GET) through the shared client: rate budget, retries, typed errors. Resolves
 * to the service as the API returned it, every value in clear, `encryptionKey` included.
 */
export async function getService(args: GetServiceArgs): Promise<Service> {
  const client = apiClientFor(programStackConfig, (line) => pulumi.log.info(`[dbcloud] getService: ${line}`));
  const organizationId = args.organizationId || programOrganizationId("getService");
  // The transport refuses bodies deeper than MAX_JSON_DEPTH, so Pulumi's recursive walk of the Output is safe.
  return (await client.getService(organizationId, args.serviceId)).service;
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
