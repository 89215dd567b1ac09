// What the CLI serves without --seed: enough to curl at once and to run the example stack.
// Fixed ids, so that documentation and copied commands keep working from one run to the next.
import type { SeedService } from "../types";

export const DEFAULT_ORGANIZATION_ID = "5f0c3a52-8d1e-4b7a-9c63-0e2f7d4a1b90";

export const DEFAULT_SEED_SERVICES: readonly SeedService[] = [
  {
    organizationId: DEFAULT_ORGANIZATION_ID,
    id: "0b6f2f1e-3c4d-4e5f-8a9b-1c2d3e4f5a60",
    name: "analytics",
    state: "running",
    reversePrivateEndpointIds: ["rpe-0001"],
  },
  {
    organizationId: DEFAULT_ORGANIZATION_ID,
    id: "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b61",
    name: "staging",
    state: "stopped",
  },
];
