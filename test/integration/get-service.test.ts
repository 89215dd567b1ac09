import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import * as pulumi from "@pulumi/pulumi";
import { startEmulator, type Emulator } from "../../src/emulator";
import {
  AuthenticationError,
  ConfigurationError,
  getService,
  getServiceOutput,
  NotFoundError,
  ResponseValidationError,
  type Service,
} from "../../src";
import { MAX_JSON_DEPTH } from "../../src/api/transport";
import { startHostileServer } from "../helpers/hostileServer";
import { serviceSchema } from "../../src/api/schemas";
import { captureProgram } from "../../src/engine-driver/capture";
import { providerConfig } from "../helpers/providerConfig";
import { parseWith, SERVICE_FIELDS } from "../helpers/serviceFields";

/*
 * getService / getServiceOutput in a Pulumi program (under Pulumi's mocks, with the stack config
 * the program would see), over real HTTP to the emulator.
 */

const ORG = "5f0c3a52-8d1e-4b7a-9c63-0e2f7d4a1b90";
const FULL = "0b6f2f1e-3c4d-4e5f-8a9b-1c2d3e4f5a60";
const NULLS = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b61";
const KEYED = "3e1d5c7b-9a2f-4e6d-8c0b-7a5f3e1d9c42";
const ENCRYPTION_KEY = "customer-disk-key-7f3a9c";

/** Every field of the spec, null: the Service of an API that sends nothing it need not. */
const ALL_NULL: Record<string, null> = Object.fromEntries(
  SERVICE_FIELDS.filter((field) => field !== "id").map((field) => [field, null]),
);

const ENV_KEYS = [
  "DBCLOUD_API_URL",
  "DBCLOUD_API_KEY_ID",
  "DBCLOUD_API_KEY_SECRET",
  "DBCLOUD_ORGANIZATION_ID",
  "DBCLOUD_RATE_LIMIT",
];

interface OutputInternals<T> {
  promise(): Promise<T>;
  isSecret: Promise<boolean>;
  isKnown: Promise<boolean>;
}
const internals = <T>(output: pulumi.Output<T>) => output as unknown as OutputInternals<T>;

describe("getService and getServiceOutput against the emulator", function () {
  this.timeout(30_000);
  let emulator: Emulator;
  const savedEnv: Record<string, string | undefined> = {};

  const stackConfig = (extra: Record<string, string> = {}) => ({
    ...providerConfig(emulator, { organizationId: ORG, rateLimit: "off" }),
    ...extra,
  });

  /** Runs `body` as a Pulumi program would (stack config set, mocks on) and returns its result. */
  async function inProgram<T>(
    body: () => Promise<T>,
    config: Record<string, string> = stackConfig(),
    preview = false,
  ): Promise<T> {
    const box: { value?: T; error?: unknown; done: boolean } = { done: false };
    await captureProgram(
      async () => {
        try {
          box.value = await body();
        } catch (error) {
          box.error = error;
        }
        box.done = true;
      },
      { project: "get-service", stack: "test", config, secretKeys: ["dbcloud:apiKeySecret"], preview },
    );
    assert.ok(box.done, "the program ran");
    if (box.error !== undefined) throw box.error;
    return box.value as T;
  }

  before(async () => {
    for (const key of ENV_KEYS) {
      savedEnv[key] = process.env[key];
      delete process.env[key];
    }
    emulator = await startEmulator({
      services: [
        { organizationId: ORG, id: FULL, name: "analytics", state: "running" },
        {
          organizationId: ORG,
          id: NULLS,
          fields: {
            ...ALL_NULL,
            futureField: { nested: [1, 2] },
            tags: [{ key: "team", value: null }],
            minReplicas: null,
          },
        },
        {
          organizationId: ORG,
          id: KEYED,
          name: "keyed",
          fields: { encryptionKey: ENCRYPTION_KEY, region: "mars-north-1", provider: "newcloud" },
        },
      ],
    });
  });

  after(async () => {
    for (const key of ENV_KEYS) {
      if (savedEnv[key] === undefined) delete process.env[key];
      else process.env[key] = savedEnv[key];
    }
    await emulator?.close();
  });

  beforeEach(() => emulator.clearRequests());

  it("getService returns every field the API sent, typed, with one GET through the client", async () => {
    const service: Service = await inProgram(() => getService({ serviceId: FULL }));
    const truth = emulator.service(FULL)!;
    assert.deepEqual(service, JSON.parse(JSON.stringify(truth)));
    assert.equal(service.name, "analytics");
    assert.equal(service.state, "running");
    assert.equal(service.provider, "aws");
    assert.equal(service.endpoints?.[0]?.protocol, "https");
    assert.equal(typeof service.dataWarehouseId, "string");
    assert.ok("autoscalingMode" in service, "fields the spec does not list pass through");
    assert.deepEqual(
      emulator.requests.map((r) => `${r.method} ${r.path} ${r.status}`),
      [`GET /v1/organizations/${ORG}/services/${FULL} 200`],
    );
  });

  it("reads a Service whose every field is null, with unknown fields, without failing", async () => {
    const service = await inProgram(() => getService({ serviceId: NULLS }));
    const fields = service as unknown as Record<string, unknown>;
    for (const field of Object.keys(ALL_NULL)) assert.equal(fields[field], null, field);
    assert.equal(service.id, NULLS);
    assert.deepEqual(fields.futureField, { nested: [1, 2] });
    assert.deepEqual(fields.tags, [{ key: "team", value: null }]);

    const output = await inProgram(async () => getServiceOutput({ serviceId: NULLS }));
    assert.equal(await internals(output).isSecret, false, "nothing secret in it");
    assert.equal((await internals(output).promise()).state, null);
  });

  it("gives every field of the spec, null when the API left it out: never undefined", () => {
    const parsed = parseWith(serviceSchema, { id: FULL, endpoints: [{ host: "h" }], extra: 1 });
    for (const field of Object.keys(ALL_NULL)) {
      if (field !== "endpoints") assert.equal((parsed as Record<string, unknown>)[field], null, field);
    }
    assert.deepEqual(parsed.endpoints, [{ protocol: null, host: "h", port: null, username: null }]);
    assert.equal((parsed as Record<string, unknown>).extra, 1);
  });

  it("accepts enumeration values the API adds later", async () => {
    const service = await inProgram(() => getService({ serviceId: KEYED }));
    assert.equal(service.region, "mars-north-1");
    assert.equal(service.provider, "newcloud");
  });

  it("getServiceOutput makes the whole result secret when the service holds an encryption key", async () => {
    const { output, endpoints } = await inProgram(async () => {
      const output = getServiceOutput({ serviceId: pulumi.output(KEYED) });
      return { output, endpoints: output.apply((service) => service.endpoints) };
    });
    assert.equal(await internals(output).isSecret, true);
    assert.equal(await internals(endpoints).isSecret, true, "values taken from it stay secret");
    assert.equal((await internals(output).promise()).encryptionKey, ENCRYPTION_KEY);

    const plain = await inProgram(async () => getServiceOutput({ serviceId: FULL }));
    assert.equal(await internals(plain).isSecret, false);
    assert.equal((await internals(plain).promise()).name, "analytics");
  });

  it("a service read nesting tens of thousands of levels fails both forms as a ResponseValidationError naming the request", async () => {
    const deep = `${'{"a":'.repeat(30_000)}{"password":"p"}${"}".repeat(30_000)}`;
    const body = `{"status":200,"requestId":"r-deep","result":{"id":"${FULL}","futureField":${deep}}}`;
    const server = await startHostileServer((_req, res) => res.writeHead(200).end(body));
    try {
      const config = { ...stackConfig(), "dbcloud:apiUrl": server.url };
      const refused = (error: Error) =>
        error instanceof ResponseValidationError &&
        error.message ===
          `Unexpected response to GET /v1/organizations/${ORG}/services/${FULL} (status 200, requestId r-deep): ` +
            `(body): nests deeper than ${MAX_JSON_DEPTH} levels`;
      await assert.rejects(
        inProgram(() => getService({ serviceId: FULL }), config),
        refused,
      );
      const output = await inProgram(async () => getServiceOutput({ serviceId: FULL }), config);
      await assert.rejects(internals(output).promise(), refused);
    } finally {
      await server.close();
    }
  });

  it("rejects a spec field of the wrong type, naming it (every response is validated)", async () => {
    const odd = randomUUID();
    emulator.addService({ organizationId: ORG, id: odd, fields: { numReplicas: "three", encryptionKey: 7 } });
    await assert.rejects(
      inProgram(() => getService({ serviceId: odd })),
      (error: Error) =>
        error instanceof ResponseValidationError &&
        /result\.numReplicas/.test(error.message) &&
        /result\.encryptionKey/.test(error.message),
    );
  });

  it("runs during preview", async () => {
    const output = await inProgram(async () => getServiceOutput({ serviceId: FULL }), stackConfig(), true);
    assert.equal(await internals(output).isKnown, true);
    assert.equal((await internals(output).promise()).name, "analytics");
    assert.equal(emulator.requests.length, 1);
  });

  it("takes organizationId from the argument first, and stack config before the environment", async () => {
    process.env.DBCLOUD_ORGANIZATION_ID = randomUUID();
    try {
      await inProgram(() => getService({ serviceId: FULL }));
      await assert.rejects(
        inProgram(() => getService({ serviceId: FULL, organizationId: randomUUID() })),
        NotFoundError,
      );
      const { "dbcloud:organizationId": _org, ...withoutOrg } = stackConfig();
      void _org;
      await assert.rejects(
        inProgram(() => getService({ serviceId: FULL }), withoutOrg),
        NotFoundError,
      );
      process.env.DBCLOUD_ORGANIZATION_ID = ORG;
      assert.equal((await inProgram(() => getService({ serviceId: FULL }), withoutOrg)).id, FULL);
    } finally {
      delete process.env.DBCLOUD_ORGANIZATION_ID;
    }
  });

  it("falls back to the environment for every setting", async () => {
    Object.assign(process.env, {
      DBCLOUD_API_URL: emulator.url,
      DBCLOUD_API_KEY_ID: emulator.keyId,
      DBCLOUD_API_KEY_SECRET: emulator.keySecret,
      DBCLOUD_ORGANIZATION_ID: ORG,
    });
    try {
      assert.equal((await inProgram(() => getService({ serviceId: FULL }), {})).name, "analytics");
    } finally {
      for (const key of ENV_KEYS) delete process.env[key];
    }
  });

  it("fails before any request when configuration is missing, naming the config keys and the variables", async () => {
    await assert.rejects(
      inProgram(() => getService({ serviceId: FULL }), { "dbcloud:organizationId": ORG }),
      (error: Error) =>
        error instanceof ConfigurationError &&
        /dbcloud:apiUrl.*DBCLOUD_API_URL/.test(error.message) &&
        /dbcloud:apiKeyId.*DBCLOUD_API_KEY_ID/.test(error.message) &&
        /dbcloud:apiKeySecret.*DBCLOUD_API_KEY_SECRET/.test(error.message),
    );
    const { "dbcloud:organizationId": _org, ...withoutOrg } = stackConfig();
    void _org;
    await assert.rejects(
      inProgram(() => getService({ serviceId: FULL }), withoutOrg),
      /getService: organizationId is not set.*dbcloud:organizationId.*DBCLOUD_ORGANIZATION_ID/s,
    );
    await assert.rejects(
      inProgram(() => getService({ serviceId: "not-a-uuid" })),
      /serviceId must be a uuid/,
    );
    assert.equal(emulator.requests.length, 0);
  });

  it("goes through the client's retries, and its errors never carry the key secret", async () => {
    emulator.injectFault({ route: "getService", status: 503, times: 1 });
    assert.equal((await inProgram(() => getService({ serviceId: FULL }))).id, FULL);
    assert.deepEqual(
      emulator.requests.map((r) => r.status),
      [503, 200],
    );

    await assert.rejects(
      inProgram(() => getService({ serviceId: randomUUID() })),
      NotFoundError,
    );

    const wrong = "wrong-secret-value-0123456789";
    await assert.rejects(
      inProgram(() => getService({ serviceId: FULL }), stackConfig({ "dbcloud:apiKeySecret": wrong })),
      (error: Error) =>
        error instanceof AuthenticationError &&
        !JSON.stringify({ ...error, text: error.message, stack: error.stack }).includes(wrong),
    );
  });
});
