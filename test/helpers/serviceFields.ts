import assert from "node:assert/strict";
import type { ResponseSchema } from "../../src/api/schemas";

/** Every field of a Service in the spec, for tests that build or check a whole Service. */
export const SERVICE_FIELDS: readonly string[] = [
  "id",
  "name",
  "provider",
  "region",
  "state",
  "databaseVersion",
  "endpoints",
  "tier",
  "minTotalMemoryGb",
  "maxTotalMemoryGb",
  "minReplicaMemoryGb",
  "maxReplicaMemoryGb",
  "numReplicas",
  "idleScaling",
  "idleTimeoutMinutes",
  "ipAccessList",
  "createdAt",
  "encryptionKey",
  "encryptionAssumedRoleIdentifier",
  "iamRole",
  "privateEndpointIds",
  "availablePrivateEndpointIds",
  "dataWarehouseId",
  "isPrimary",
  "isReadonly",
  "releaseChannel",
  "byocId",
  "hasTransparentDataEncryption",
  "profile",
  "transparentDataEncryptionKeyId",
  "encryptionRoleId",
  "complianceType",
];

/** What `schema` makes of `value`, failing the test with the problems when it does not fit. */
export function parseWith<T>(schema: ResponseSchema<T>, value: unknown): T {
  const checked = schema.safeParse(value);
  if (!checked.success) assert.fail(checked.issues.join("; "));
  return checked.data;
}
