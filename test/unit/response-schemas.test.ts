import assert from "node:assert/strict";
import { once } from "../../src/api/once";
import { SERVICE_FIELDS } from "../helpers/serviceFields";

/*
 * The response schemas as defined. Each is built once per process (once.ts) and shared after,
 * so this file takes them from a fresh load of the module, as a second installed copy of the
 * package would build its own: what is tested is the definition, not a copy an earlier caller
 * in the process built.
 */

type Schemas = typeof import("../../src/api/schemas");

/** The schemas module loaded anew (and once.ts with it); the cached copy is put back after. */
function freshSchemas(): Schemas {
  const paths = [require.resolve("../../src/api/schemas"), require.resolve("../../src/api/once")];
  const saved = paths.map((path) => require.cache[path]);
  for (const path of paths) delete require.cache[path];
  try {
    return require("../../src/api/schemas") as Schemas;
  } finally {
    paths.forEach((path, i) => {
      if (saved[i]) require.cache[path] = saved[i];
      else delete require.cache[path];
    });
  }
}

const allNull = (fields: readonly string[]) => Object.fromEntries(fields.map((field) => [field, null]));

describe("response schemas", () => {
  it("a Service has every field of the spec, null when the API left it out; unknown fields pass", () => {
    const { serviceSchema } = freshSchemas();
    assert.deepEqual(serviceSchema().parse({}), allNull(SERVICE_FIELDS));
    assert.deepEqual(serviceSchema().parse({ extra: 1 }), { ...allNull(SERVICE_FIELDS), extra: 1 });
    assert.equal(serviceSchema().safeParse({ state: 5 }).success, false);
  });

  it("an endpoint and an IP access list entry have every field of the spec, null when left out", () => {
    const { serviceEndpointSchema, ipAccessListEntrySchema } = freshSchemas();
    assert.deepEqual(serviceEndpointSchema().parse({}), allNull(["protocol", "host", "port", "username"]));
    assert.equal(serviceEndpointSchema().safeParse({ port: "8443" }).success, false);
    assert.deepEqual(ipAccessListEntrySchema().parse({}), allNull(["source", "description"]));
    assert.equal(ipAccessListEntrySchema().safeParse({ source: 1 }).success, false);
  });

  it("a Service envelope needs a numeric status and a Service", () => {
    const { serviceEnvelopeSchema } = freshSchemas();
    assert.equal(serviceEnvelopeSchema().safeParse({ result: {} }).success, false);
    assert.equal(serviceEnvelopeSchema().safeParse({ status: 200 }).success, false);
    const parsed = serviceEnvelopeSchema().parse({ status: 200, requestId: null, result: {} });
    assert.deepEqual(parsed.result, allNull(SERVICE_FIELDS));
  });

  it("an error envelope's message is a string or nothing", () => {
    const { errorEnvelopeSchema } = freshSchemas();
    assert.equal(errorEnvelopeSchema().safeParse({ status: 503, error: 42 }).success, false);
    assert.equal(errorEnvelopeSchema().safeParse({ status: "503" }).success, false);
    assert.equal(errorEnvelopeSchema().safeParse({ requestId: 7 }).success, false);
    assert.deepEqual(errorEnvelopeSchema().parse({ status: 503, error: "busy" }), {
      status: 503,
      error: "busy",
    });
  });

  it("once builds on the first call and returns the same value after", () => {
    let builds = 0;
    const get = once(() => ({ build: ++builds }));
    const first = get();
    assert.deepEqual(first, { build: 1 });
    assert.equal(get(), first);
    assert.equal(builds, 1);
  });
});
