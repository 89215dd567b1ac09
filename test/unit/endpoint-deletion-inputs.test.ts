import assert from "node:assert/strict";
import { join } from "node:path";
import { UNKNOWN_VALUE } from "../../src/provider/inputs";
import * as endpoint from "../../src/provider/reversePrivateEndpointDeletion";
import { loadSecondCopy } from "../helpers/secondCopy";
import { endpointIdOf } from "../helpers/endpointId";

/*
 * What ReversePrivateEndpointDeletion's entry points accept, without any API call: check, diff
 * and update (a timeout change makes no call).
 */

const ORG = "3f2a1c9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b";
const SVC = "4a3b2c1d-0e9f-4a8b-8c7d-6e5f4a3b2c1d";

describe("ReversePrivateEndpointDeletion diff, update and check", () => {
  const props = { organizationId: ORG, serviceId: SVC, reversePrivateEndpointId: "rpe-1" };

  it("a timeout change alone is an update without replacement; an absent timeout is the default", async () => {
    assert.deepEqual(
      await endpoint.diff("x", { ...props, timeoutSeconds: 300 }, { ...props, timeoutSeconds: 60 }),
      {
        changes: true,
        replaces: [],
        deleteBeforeReplace: false,
      },
    );
    assert.equal((await endpoint.diff("x", { ...props }, { ...props, timeoutSeconds: 300 })).changes, false);
    assert.equal((await endpoint.diff("x", { ...props, timeoutSeconds: 300 }, { ...props })).changes, false);
    assert.equal((await endpoint.diff("x", { ...props }, { ...props, timeoutSeconds: 301 })).changes, true);
  });

  it("diff refuses invalid new inputs", async () => {
    await assert.rejects(
      endpoint.diff("x", props, { ...props, reversePrivateEndpointId: ".." }),
      (error: Error) =>
        error.message.startsWith(
          "ReversePrivateEndpointDeletion diff: refusing to act on invalid properties",
        ),
    );
  });

  it("diff during preview: a timeout not known yet is an update, an id not known yet a replacement", async () => {
    assert.deepEqual(await endpoint.diff("x", props, { ...props, timeoutSeconds: UNKNOWN_VALUE }), {
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });
    // Even when the old id happens to be the very text of the placeholder: unknown may become anything.
    const placeholderId = { ...props, reversePrivateEndpointId: UNKNOWN_VALUE };
    assert.deepEqual(
      (await endpoint.diff("x", placeholderId, { ...props, reversePrivateEndpointId: UNKNOWN_VALUE }))
        .replaces,
      ["reversePrivateEndpointId"],
    );
  });

  it("update re-validates and returns the inputs with the default timeout", async () => {
    assert.deepEqual(await endpoint.update(endpointIdOf({ ...props }), props, { ...props }), {
      outs: { ...props, timeoutSeconds: 300 },
    });
    assert.deepEqual(
      await endpoint.update(endpointIdOf({ ...props, timeoutSeconds: 5 }), props, {
        ...props,
        timeoutSeconds: 5,
      }),
      {
        outs: { ...props, timeoutSeconds: 5 },
      },
    );
    await assert.rejects(
      endpoint.update(endpointIdOf({ ...props, timeoutSeconds: Number.NaN }), props, {
        ...props,
        timeoutSeconds: Number.NaN,
      }),
      (error: Error) =>
        error.message.startsWith(
          "ReversePrivateEndpointDeletion update: refusing to act on invalid properties",
        ),
    );
  });

  it("check fills the default timeout of 300 and keeps one given", async () => {
    const { inputs, failures } = await endpoint.check({}, { ...props });
    assert.deepEqual(failures, []);
    assert.equal(inputs.timeoutSeconds, 300);
    assert.equal((await endpoint.check({}, { ...props, timeoutSeconds: 7 })).inputs.timeoutSeconds, 7);
  });
});

describe("ReversePrivateEndpointDeletion as a provider host loads it afresh", () => {
  const props = { organizationId: ORG, serviceId: SVC, reversePrivateEndpointId: "rpe-1" };
  // Its field rules are built on first use and kept: a fresh copy of the module builds them here.
  const fresh = () =>
    loadSecondCopy<typeof endpoint>(
      join(__dirname, "..", "..", "src", "provider", "reversePrivateEndpointDeletion.ts"),
    );

  it("check reports every field with its own rule and message", async () => {
    const copy = fresh();
    const bad = await copy.check(
      {},
      { organizationId: "acme", serviceId: 7, reversePrivateEndpointId: "a/b", timeoutSeconds: 0 },
    );
    assert.deepEqual(bad.failures, [
      {
        property: "organizationId",
        reason: 'organizationId must be a uuid, like 3f2a1c9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b (got "acme")',
      },
      { property: "serviceId", reason: "serviceId must be a string (got 7)" },
      {
        property: "reversePrivateEndpointId",
        reason:
          'reversePrivateEndpointId must be 1 to 128 characters of letters, digits and . _ : ~ - (got "a/b")',
      },
      { property: "timeoutSeconds", reason: "timeoutSeconds must be greater than 0 (got 0)" },
    ]);
    const notString = await copy.check({}, { ...props, reversePrivateEndpointId: 7 });
    assert.deepEqual(notString.failures, [
      { property: "reversePrivateEndpointId", reason: "reversePrivateEndpointId must be a string (got 7)" },
    ]);
  });

  it("check requires the three ids; a null timeout is the default", async () => {
    const { failures } = await fresh().check({}, { organizationId: null, timeoutSeconds: null });
    assert.deepEqual(failures, [
      { property: "organizationId", reason: "organizationId is required" },
      { property: "serviceId", reason: "serviceId is required" },
      { property: "reversePrivateEndpointId", reason: "reversePrivateEndpointId is required" },
    ]);
  });

  it("update and diff take an absent timeout as the default", async () => {
    const copy = fresh();
    assert.deepEqual(await copy.update(endpointIdOf({ ...props }), props, { ...props }), {
      outs: { ...props, timeoutSeconds: 300 },
    });
    assert.equal((await copy.diff("x", { ...props, timeoutSeconds: 300 }, { ...props })).changes, false);
  });
});
