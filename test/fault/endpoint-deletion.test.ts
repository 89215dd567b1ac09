// Model-based fault suite, ReversePrivateEndpointDeletion: random schedules of faults on the
// DELETE and on the GET that create and read make, with the endpoint sometimes deleted by someone
// else first. After each destroy: done means gone on the server; an error names its cause and
// request id; the secret is nowhere.
import assert from "node:assert/strict";
import fc from "fast-check";
import * as provider from "../../src/provider";
import type { Fault } from "../../src/emulator";
import { deleteBoundMs, endpointFault } from "./faults";
import {
  countRetries,
  entriesSince,
  findLeaks,
  FUZZ_SEED,
  lastSeq,
  runAction,
  runs,
  startWorld,
  totals,
  unclearError,
} from "./harness";

const ENDPOINT = "rpe-0a1b2c";
type Check = "gone" | "secret";

async function destroyUnder(faults: Fault[], goneBefore: boolean, checks: Check[]): Promise<void> {
  const world = await startWorld();
  const serviceId = world.emulator.addService({
    organizationId: world.organizationId,
    name: "pipes",
    reversePrivateEndpointIds: [ENDPOINT],
  }).id;
  try {
    const props = { organizationId: world.organizationId, serviceId, reversePrivateEndpointId: ENDPOINT };
    const created = await provider.reversePrivateEndpointDeletionCreate(props);
    if (goneBefore) world.emulator.removeEndpoint(serviceId, ENDPOINT);
    const since = lastSeq(world);
    for (const fault of faults) world.emulator.injectFault(fault);
    const boundMs = deleteBoundMs(faults);
    const result = await runAction(world, boundMs, () =>
      provider.reversePrivateEndpointDeletionDelete(created.id, { ...created.outs }),
    );
    const entries = entriesSince(world, serviceId, since);
    totals.runs++;
    totals.faults += entries.filter((entry) => entry.fault !== undefined).length + (goneBefore ? 1 : 0);
    totals.retries += countRetries(entries);
    const problems: string[] = [];
    if (checks.includes("gone")) {
      if (result.cutOff) problems.push(`delete still running after ${boundMs} ms`);
      else if (result.error === undefined && world.emulator.hasEndpoint(serviceId, ENDPOINT))
        problems.push(
          `delete reported success but the endpoint still exists (${entries.map((e) => `${e.status}`).join(", ")})`,
        );
      else if (result.error !== undefined) problems.push(...unclearError(result.error, entries, world));
    }
    if (checks.includes("secret")) {
      const leaks = [
        ...findLeaks(world, "delete error", result.error),
        ...findLeaks(world, "stdout", result.stdout),
        ...findLeaks(world, "stderr", result.stderr),
      ];
      totals.leaks += leaks.length;
      problems.push(...leaks);
    }
    assert.deepEqual(problems, [], problems.join("\n"));
  } finally {
    await world.close();
  }
}

const property = (hostile: boolean, checks: Check[]) =>
  fc.asyncProperty(
    fc.array(endpointFault(hostile), { minLength: 1, maxLength: 3 }),
    fc.boolean(),
    (faults, gone) => destroyUnder(faults, gone, checks),
  );
const settings = (numRuns: number) => ({ seed: FUZZ_SEED, numRuns: runs(numRuns) });

describe("fault suite: ReversePrivateEndpointDeletion", function () {
  this.timeout(600_000);

  it("under transient faults: a destroy that succeeds leaves no endpoint; errors are clear; no secret", async () => {
    await fc.assert(property(false, ["gone", "secret"]), settings(20));
  });

  it("under every fault kind: a destroy that succeeds leaves no endpoint, and errors are clear", async () => {
    await fc.assert(property(true, ["gone"]), settings(20));
  });

  it("under every fault kind: the secret appears in no error or log line", async () => {
    await fc.assert(property(true, ["secret"]), settings(20));
  });
});
