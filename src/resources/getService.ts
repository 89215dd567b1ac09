import * as pulumi from "@pulumi/pulumi";
import { holdsSecret } from "../api/redact";
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
