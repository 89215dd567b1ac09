import { checkedRequestUrl } from "../../src/api/guards";
import {
  errorEnvelopeSchema,
  ipAccessListEntrySchema,
  serviceEndpointSchema,
  serviceEnvelopeSchema,
  serviceSchema,
} from "../../src/api/schemas";
import { closeSharedDispatchers } from "../../src/api/shared";

/*
 * Fills, while the test files load, what the code builds once per process: the response schemas,
 * the client's three path patterns, and the process-wide shared state. Stryker's mocha runner
 * loads the files with no mutant active and then runs every mutant in that one process; a cache
 * first filled while a mutant of its builder is active would keep the mutant's value for every
 * later run of that process and fail unrelated tests (false kills). Filled here, the shared copies
 * are the real ones; the builders' own tests build fresh ones (see test/MUTATION.md).
 * Imported for its effect by test/unit/mutation-guards-and-redaction.test.ts.
 */

for (const build of [
  serviceEndpointSchema,
  ipAccessListEntrySchema,
  serviceSchema,
  serviceEnvelopeSchema,
  errorEnvelopeSchema,
])
  build();

const SERVICE = "/v1/organizations/{organizationId}/services/{serviceId}";
const SERVICE_PATH = "/v1/organizations/o/services/s";
for (const [template, path] of [
  [SERVICE, SERVICE_PATH],
  [`${SERVICE}/state`, `${SERVICE_PATH}/state`],
  [
    `${SERVICE}/pipesReversePrivateEndpoints/{reversePrivateEndpointId}`,
    `${SERVICE_PATH}/pipesReversePrivateEndpoints/e`,
  ],
])
  checkedRequestUrl("https://api.example.com", template, path);

// Makes the shared state (it has no dispatchers yet, so nothing is closed).
void closeSharedDispatchers();
