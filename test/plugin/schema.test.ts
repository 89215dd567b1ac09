import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020";
import * as plugin_pb from "@pulumi/pulumi/proto/plugin_pb";
import * as provpb from "@pulumi/pulumi/proto/provider_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { randomUUID } from "node:crypto";
import { startEmulator } from "../../src/emulator";
import { packageSchema } from "../../src/plugin/schema";
import { reversePrivateEndpointDeletionSpec } from "../../src/provider/reversePrivateEndpointDeletion";
import { serviceRunStateSpec } from "../../src/provider/serviceRunStateInputs";
import { engineCalls } from "./engineCalls";
import { ROOT, sourcePluginCommand, startFakeEngine, startPlugin } from "./pluginProcess";

/*
 * The schema `pulumi package add` reads: valid against Pulumi's package metaschema, every
 * reference resolved, every entry described, the inputs exactly the provider's field
 * definitions; and the source-plugin folder, run as the Node language host runs it, serving it.
 */

const METASCHEMA = join(ROOT, "..", "shared", "pulumi", "package-metaschema.json");
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Every `$ref` in the schema, with where it is. */
function refs(value: unknown, path = ""): [string, string][] {
  if (Array.isArray(value)) return value.flatMap((item, i) => refs(item, `${path}[${i}]`));
  if (!value || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, item]) =>
    key === "$ref" ? [[path, item as string]] : refs(item, `${path}.${key}`),
  );
}

describe("plugin: schema", function () {
  const schema = packageSchema() as Json;

  it("is valid against Pulumi's package metaschema", function () {
    if (!existsSync(METASCHEMA)) {
      console.log(`      skipped: ${METASCHEMA} is absent (the shared folder is not beside this checkout)`);
      this.skip();
    }
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    const validate = ajv.compile(JSON.parse(readFileSync(METASCHEMA, "utf8")));
    assert.ok(validate(schema), JSON.stringify(validate.errors, null, 2));
  });

  it("resolves every $ref to one of its types, and describes every property", function () {
    for (const [path, ref] of refs(schema)) {
      assert.ok(ref.startsWith("#/types/") && schema.types[ref.slice(8)], `${path}: dangling ${ref}`);
    }
    const described = (properties: Json, where: string) => {
      for (const [name, spec] of Object.entries(properties)) assert.ok(spec.description, `${where}.${name}`);
    };
    for (const [token, resource] of Object.entries<Json>(schema.resources)) {
      assert.ok(resource.description, token);
      described(resource.inputProperties, token);
      described(resource.properties, token);
    }
    for (const [token, type] of Object.entries<Json>(schema.types)) described(type.properties, token);
    described(schema.functions["dbcloud:index:getService"].outputs.properties, "getService");
    described(schema.config.variables, "config");
  });

  it("has the provider's input fields, the dynamic resources' outputs and aliases, a secret key setting", function () {
    const runState = schema.resources["dbcloud:index:ServiceRunState"];
    const deletion = schema.resources["dbcloud:index:ReversePrivateEndpointDeletion"];
    assert.deepEqual(Object.keys(runState.inputProperties), Object.keys(serviceRunStateSpec.fields()));
    assert.deepEqual(
      Object.keys(deletion.inputProperties),
      Object.keys(reversePrivateEndpointDeletionSpec.fields()),
    );
    assert.deepEqual(runState.requiredInputs, ["serviceId", "state"]);
    for (const output of ["observedState", "serviceName", "databaseVersion", "endpoints", "lastCommand"]) {
      assert.ok(runState.required.includes(output), output);
    }
    assert.deepEqual(runState.aliases, [{ type: "pulumi-nodejs:dynamic/dbcloud:ServiceRunState" }]);
    assert.deepEqual(deletion.aliases, [
      { type: "pulumi-nodejs:dynamic/dbcloud:ReversePrivateEndpointDeletion" },
    ]);
    assert.deepEqual(Object.keys(schema.config.variables).sort(), [
      "apiKeyId",
      "apiKeySecret",
      "apiUrl",
      "organizationId",
      "rateLimit",
      "rateLimitStore",
    ]);
    assert.equal(schema.config.variables.apiKeySecret.secret, true);
    assert.equal(schema.config.variables.rateLimitStore.secret, true, "a store URL may hold its password");
    assert.equal(schema.functions["dbcloud:index:getService"].outputs.properties.encryptionKey.secret, true);
    assert.deepEqual(Object.keys(schema.language).sort(), ["csharp", "go", "java", "nodejs", "python"]);
    // `go get` resolves the Go SDK's import path in the repository the schema names.
    const repository = new URL(schema.repository);
    assert.equal(
      schema.language.go.importBasePath,
      `${repository.host}${repository.pathname}/sdk/go/dbcloud`,
    );
  });

  it("is the schema sdk/ was generated from (`npm run sdk` after a change; CI regenerates the SDKs too)", function () {
    const committed = readFileSync(join(ROOT, "sdk", "schema.json"), "utf8");
    assert.equal(committed, `${JSON.stringify(schema, null, 2)}\n`);
  });

  it("is served by the source-plugin folder, configured from variables and the environment", async function () {
    const emulator = await startEmulator();
    const engine = await startFakeEngine();
    const env = {
      DBCLOUD_API_URL: emulator.url,
      DBCLOUD_API_KEY_ID: emulator.keyId,
      DBCLOUD_API_KEY_SECRET: emulator.keySecret,
    };
    const source = await startPlugin(sourcePluginCommand(), { engine: engine.address, env });
    try {
      const info = await source.call<plugin_pb.PluginInfo>("getPluginInfo", new Empty());
      assert.equal(info.getVersion(), require(join(ROOT, "package.json")).version);
      const served = await source.call<provpb.GetSchemaResponse>("getSchema", new provpb.GetSchemaRequest());
      assert.deepEqual(JSON.parse(served.getSchema()), schema);

      const organizationId = randomUUID();
      const serviceId = randomUUID();
      emulator.addService({ organizationId, id: serviceId, name: "from-source" });
      const calls = engineCalls(source);
      await calls.configure({}, { "dbcloud:config:organizationId": organizationId });
      const { result } = await calls.invoke("dbcloud:index:getService", { serviceId });
      assert.equal(result.name, "from-source");
      assert.deepEqual(source.stdout, []);
    } finally {
      await source.stop();
      engine.stop();
      await emulator.close();
    }
  });
});
