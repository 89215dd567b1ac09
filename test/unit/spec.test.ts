import assert from "node:assert/strict";
import { z } from "zod";
import { checkFields, uuidField, withSecrets } from "../../src/provider/inputs";
import { outputsOf, serviceRunStateSpec } from "../../src/provider/serviceRunStateInputs";
import { checkAndDiff, defineResource, withDefaults } from "../../src/provider/spec";

/*
 * What the resources' specs promise beyond each resource's own tests: a value that is secret (by
 * its field, or as the caller received it) is never quoted back, and the provider returns exactly
 * the outputs a spec declares, each of its kind (the schema and the TypeScript types say so).
 */

const ORG = "3f2a1c9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b";
const HIDDEN = "not-a-token-7f3a";

describe("resource specs", () => {
  const spec = defineResource({
    name: "Trial",
    description: "A resource with a secret input.",
    fields: () => ({
      organizationId: { schema: uuidField("organizationId"), description: "o", required: true },
      token: {
        schema: z.string().min(40, { error: "token must be 40 characters or more" }),
        description: "t",
        secret: true,
      },
      label: { schema: z.string().max(3, { error: "label is at most 3 characters" }), description: "l" },
    }),
    outputs: {},
    id: { fields: ["organizationId"], labels: ["organization"] },
    importId: { form: "organizationId", minParts: 1 },
  });

  const { check } = checkAndDiff(spec);

  it("a field its spec marks secret is never quoted, whatever its value", async () => {
    for (const token of [HIDDEN, 7, { nested: HIDDEN }]) {
      const { failures } = await check({}, { organizationId: ORG, token });
      assert.equal(failures.length, 1, JSON.stringify(failures));
      assert.equal(failures[0].property, "token");
      assert.ok(failures[0].reason.endsWith("(got a secret value)"), failures[0].reason);
      assert.ok(!failures[0].reason.includes("7f3a"), failures[0].reason);
    }
  });

  it("a value the caller received as secret is never quoted; the others are", async () => {
    const { failures } = await check(
      {},
      { organizationId: HIDDEN, label: "long" },
      new Set(["organizationId"]),
    );
    assert.deepEqual(failures, [
      {
        property: "organizationId",
        reason:
          "organizationId must be a uuid, like 3f2a1c9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b (got a secret value)",
      },
      { property: "label", reason: 'label is at most 3 characters (got "long")' },
    ]);
    assert.deepEqual(
      checkFields({ organizationId: 5 }, withSecrets(spec.fields(), new Set(["organizationId"])), false),
      [{ property: "organizationId", reason: "organizationId must be a string (got a secret value)" }],
    );
  });

  it("ServiceRunState returns exactly the outputs its spec declares, each of its kind", () => {
    const inputs = withDefaults(serviceRunStateSpec, {
      organizationId: ORG,
      serviceId: ORG,
      state: "running",
      deleteTimeoutSeconds: 60,
    });
    const endpoint = { protocol: "https", host: "h", port: 1, username: "u" };
    const outputs = outputsOf(inputs, { state: "running", endpoints: [endpoint] }) as Record<string, unknown>;
    const fields = Object.keys(serviceRunStateSpec.fields());
    assert.ok(Object.keys(inputs).every((name) => fields.includes(name)) && "deleteTimeoutSeconds" in inputs);
    assert.deepEqual(Object.keys(outputs), [
      ...Object.keys(inputs),
      ...Object.keys(serviceRunStateSpec.outputs),
    ]);
    const kindOf = (value: unknown): string =>
      Array.isArray(value) ? `${kindOf(value[0])}[]` : typeof value === "object" ? "object" : typeof value;
    for (const [name, [kind]] of Object.entries(serviceRunStateSpec.outputs)) {
      const expected = kind.endsWith("[]") ? "object[]" : /^[A-Z]/.test(kind) ? "object" : kind;
      assert.equal(kindOf(outputs[name]), expected, name);
    }
    for (const [name, [kind]] of Object.entries(serviceRunStateSpec.types!.LastCommand.properties)) {
      assert.equal(
        typeof (outputs.lastCommand as Record<string, unknown>)[name],
        kind,
        `lastCommand.${name}`,
      );
    }
  });
});
