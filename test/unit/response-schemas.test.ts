import assert from "node:assert/strict";
import { parseWith, SERVICE_FIELDS } from "../helpers/serviceFields";

import {
  errorEnvelopeSchema,
  MAX_ISSUES,
  MAX_LIST_ITEMS,
  serviceEnvelopeSchema,
  serviceSchema,
} from "../../src/api/schemas";

const allNull = (fields: readonly string[]) => Object.fromEntries(fields.map((field) => [field, null]));

describe("response schemas", () => {
  it("a Service has every field of the spec, null when the API left it out; unknown fields pass", () => {
    assert.deepEqual(parseWith(serviceSchema, {}), allNull(SERVICE_FIELDS));
    assert.deepEqual(parseWith(serviceSchema, { extra: 1 }), { ...allNull(SERVICE_FIELDS), extra: 1 });
    assert.equal(serviceSchema.safeParse({ state: 5 }).success, false);
  });

  it("an endpoint and an IP access list entry have every field of the spec, null when left out", () => {
    const parsed = parseWith(serviceSchema, { endpoints: [{}], ipAccessList: [{}] });
    assert.deepEqual(parsed.endpoints, [allNull(["protocol", "host", "port", "username"])]);
    assert.equal(serviceSchema.safeParse({ endpoints: [{ port: "8443" }] }).success, false);
    assert.deepEqual(parsed.ipAccessList, [allNull(["source", "description"])]);
    assert.equal(serviceSchema.safeParse({ ipAccessList: [{ source: 1 }] }).success, false);
  });

  it("a Service envelope needs a numeric status and a Service", () => {
    assert.equal(serviceEnvelopeSchema.safeParse({ result: {} }).success, false);
    assert.equal(serviceEnvelopeSchema.safeParse({ status: 200 }).success, false);
    const parsed = parseWith(serviceEnvelopeSchema, { status: 200, requestId: null, result: {} });
    assert.deepEqual(parsed.result, allNull(SERVICE_FIELDS));
  });

  it("names each problem by its path and what was expected", () => {
    const issuesOf = (value: unknown) => {
      const checked = serviceEnvelopeSchema.safeParse(value);
      assert.equal(checked.success, false);
      return checked.success ? [] : checked.issues;
    };
    assert.deepEqual(issuesOf([]), ["(root): expected object, received array"]);
    assert.deepEqual(issuesOf({ status: "200", requestId: 7, result: null }), [
      "status: expected number, received string",
      "requestId: expected string, received number",
      "result: expected object, received null",
    ]);
    assert.deepEqual(
      issuesOf({
        status: 200,
        result: {
          state: 5,
          idleScaling: "true",
          numReplicas: Infinity,
          endpoints: [{ port: 9440 }, { port: "8443" }, null],
          ipAccessList: {},
          privateEndpointIds: ["pe-1", 2],
        },
      }),
      [
        "result.state: expected string, received number",
        "result.endpoints.1.port: expected number, received string",
        "result.endpoints.2: expected object, received null",
        "result.numReplicas: expected number, received Infinity",
        "result.idleScaling: expected boolean, received string",
        "result.ipAccessList: expected array, received object",
        "result.privateEndpointIds.1: expected string, received number",
      ],
    );
    assert.deepEqual(issuesOf({ result: {} }), ["status: required"]);
    assert.deepEqual(issuesOf({ status: null, result: {} }), ["status: required"]);
    assert.deepEqual(issuesOf({ status: "200" }), [
      "status: expected number, received string",
      "result: expected object, received undefined",
    ]);
  });

  it("checks every field of the spec for its kind, in a Service and in its lists' records", () => {
    // The kinds as the spec gives them, written out here rather than read from the source.
    const lists = ["endpoints", "ipAccessList", "privateEndpointIds", "availablePrivateEndpointIds"];
    const numbers = [
      "minTotalMemoryGb",
      "maxTotalMemoryGb",
      "minReplicaMemoryGb",
      "maxReplicaMemoryGb",
      "numReplicas",
      "idleTimeoutMinutes",
    ];
    const booleans = ["idleScaling", "isPrimary", "isReadonly", "hasTransparentDataEncryption"];
    const kindOf = (field: string) =>
      lists.includes(field)
        ? "array"
        : numbers.includes(field)
          ? "number"
          : booleans.includes(field)
            ? "boolean"
            : "string";
    const issuesOf = (checked: { success: boolean; issues?: string[] }) => checked.issues ?? [];
    for (const field of SERVICE_FIELDS) {
      assert.deepEqual(
        issuesOf(serviceSchema.safeParse({ [field]: {} })),
        [`${field}: expected ${kindOf(field)}, received object`],
        field,
      );
    }
    const endpointKinds = { protocol: "string", host: "string", port: "number", username: "string" };
    for (const [field, kind] of Object.entries(endpointKinds)) {
      assert.deepEqual(issuesOf(serviceSchema.safeParse({ endpoints: [{ [field]: {} }] })), [
        `endpoints.0.${field}: expected ${kind}, received object`,
      ]);
    }
    for (const field of ["source", "description"]) {
      assert.deepEqual(issuesOf(serviceSchema.safeParse({ ipAccessList: [{ [field]: {} }] })), [
        `ipAccessList.0.${field}: expected string, received object`,
      ]);
    }
  });

  it("lists at most MAX_ISSUES problems of a hostile answer, and counts the rest", () => {
    const checked = serviceSchema.safeParse({
      privateEndpointIds: Array.from({ length: 1000 }, (_, i) => i),
    });
    assert.equal(checked.success, false);
    if (checked.success) return;
    assert.equal(checked.issues.length, MAX_ISSUES + 1);
    assert.equal(checked.issues[0], "privateEndpointIds.0: expected string, received number");
    assert.equal(
      checked.issues[MAX_ISSUES - 1],
      `privateEndpointIds.${MAX_ISSUES - 1}: expected string, received number`,
    );
    assert.equal(checked.issues[MAX_ISSUES], `and ${1000 - MAX_ISSUES} more problems`);
    const exactly = serviceSchema.safeParse({
      privateEndpointIds: Array.from({ length: MAX_ISSUES }, (_, i) => i),
    });
    assert.equal(
      exactly.success ? 0 : exactly.issues.length,
      MAX_ISSUES,
      "no count line when none is left out",
    );
  });

  it("keeps unknown fields as sent, after the spec's; a __proto__ field stays a field", () => {
    const nested = { deep: [1] };
    const parsed = parseWith(
      serviceSchema,
      JSON.parse('{"zeta":1,"__proto__":{"polluted":true},"state":"running"}'),
    );
    const fields = parsed as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(parsed), Object.prototype);
    assert.equal(fields.polluted, undefined);
    assert.deepEqual(Object.getOwnPropertyDescriptor(parsed, "__proto__"), {
      value: { polluted: true },
      writable: true,
      enumerable: true,
      configurable: true,
    });
    assert.equal(parsed.state, "running");
    const keys = Object.keys(parsed);
    assert.deepEqual(keys.slice(0, SERVICE_FIELDS.length), [...SERVICE_FIELDS]);
    assert.deepEqual(keys.slice(SERVICE_FIELDS.length), ["zeta", "__proto__"]);
    assert.equal((parseWith(serviceSchema, { extra: nested }) as Record<string, unknown>).extra, nested);
    const input = { endpoints: [{ host: "h" }] };
    const copy = parseWith(serviceSchema, input);
    assert.notEqual(copy.endpoints, input.endpoints, "lists are copied, never the caller's");
    assert.deepEqual(input, { endpoints: [{ host: "h" }] }, "the input is left as it was");
  });

  it("an error envelope's message is a string or nothing", () => {
    assert.equal(errorEnvelopeSchema.safeParse({ status: 503, error: 42 }).success, false);
    assert.equal(errorEnvelopeSchema.safeParse({ status: "503" }).success, false);
    assert.equal(errorEnvelopeSchema.safeParse({ requestId: 7 }).success, false);
    assert.deepEqual(errorEnvelopeSchema.parse({ status: 503, error: "busy" }), {
      status: 503,
      error: "busy",
    });
  });

  it("refuses a list longer than MAX_LIST_ITEMS with one problem, its items unchecked", () => {
    const checked = serviceSchema.safeParse({
      privateEndpointIds: Array.from({ length: MAX_LIST_ITEMS + 1 }, () => 0),
    });
    assert.deepEqual(checked.success ? [] : checked.issues, [
      `privateEndpointIds: Too big: expected array to have <=${MAX_LIST_ITEMS} items`,
    ]);
    const full = Array.from({ length: MAX_LIST_ITEMS }, (_, i) => `pe-${i}`);
    assert.deepEqual(parseWith(serviceSchema, { privateEndpointIds: full }).privateEndpointIds, full);
  });

  it("a __proto__ field inside a list's record stays a field too", () => {
    const parsed = parseWith(
      serviceSchema,
      JSON.parse('{"endpoints":[{"__proto__":{"host":"x"},"port":1}]}'),
    );
    const [endpoint] = parsed.endpoints!;
    assert.equal(Object.getPrototypeOf(endpoint), Object.prototype);
    assert.equal(endpoint.host, null);
    assert.deepEqual(Object.getOwnPropertyDescriptor(endpoint, "__proto__")?.value, { host: "x" });
  });
});
