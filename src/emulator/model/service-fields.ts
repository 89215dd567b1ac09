// The fields of an emulated Service besides its id and state. The real service sends more than
// the spec lists and sends nulls for unset optional strings; clients must cope with both, so the
// emulator does the same by default.
import { randomUUID } from "node:crypto";

export function defaultServiceFields(serviceId: string, createdAt: Date): Record<string, unknown> {
  const hostPrefix = serviceId.slice(0, 8).toLowerCase();
  const host = `${hostPrefix}.us-east-1.aws.dbcloud.local`;
  return {
    name: `Emulated service ${hostPrefix}`,
    provider: "aws",
    region: "us-east-1",
    databaseVersion: "25.3",
    endpoints: [
      { protocol: "https", host, port: 8443, username: null },
      { protocol: "nativesecure", host, port: 9440, username: null },
    ],
    tier: "production",
    minTotalMemoryGb: 24,
    maxTotalMemoryGb: 360,
    minReplicaMemoryGb: 8,
    maxReplicaMemoryGb: 120,
    numReplicas: 3,
    idleScaling: true,
    idleTimeoutMinutes: 15,
    ipAccessList: [{ source: "0.0.0.0/0", description: "anywhere" }],
    createdAt: createdAt.toISOString(),
    encryptionKey: null,
    encryptionAssumedRoleIdentifier: null,
    iamRole: null,
    privateEndpointIds: [],
    availablePrivateEndpointIds: [],
    dataWarehouseId: randomUUID(),
    isPrimary: true,
    isReadonly: false,
    releaseChannel: "default",
    byocId: null,
    hasTransparentDataEncryption: false,
    transparentDataEncryptionKeyId: null,
    encryptionRoleId: null,
    profile: null,
    complianceType: null,
    // Beyond the spec, as the real service sends them.
    minReplicas: 3,
    maxReplicas: 3,
    autoscalingMode: "vertical",
    tags: [],
  };
}
