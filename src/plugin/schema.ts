import { z } from "zod";
import { holdsSecret } from "../api/redact";
import { PACKAGE_VERSION } from "../api/version";
import { ENDPOINT_FIELDS, IP_ACCESS_FIELDS, SERVICE_FIELDS } from "../api/serviceFields";
import { CONFIG_SETTINGS } from "../config";
import { serviceRunStateSpec } from "../provider/serviceRunStateInputs";
import { ORGANIZATION_DESCRIPTION, type OutputTable } from "../provider/spec";
import { GET_SERVICE } from "./invoke";
import { RESOURCES, type ResourceKind } from "./resources";

/*
 * The package schema the SDKs are generated from, built from the provider code's own definitions
 * so the two cannot drift: the resources' specs (inputs from check's zod schemas), the `Service`
 * type's fields (api/serviceFields.ts), the provider's settings.
 */

/** What a user reads of each setting in their IDE. */
const CONFIG_DESCRIPTIONS: Record<string, string> = {
  apiUrl: "Base URL of the management API, without `/v1`.",
  apiKeyId: "API key id.",
  apiKeySecret: "API key secret.",
  organizationId: "Default organization of the resources and of `getService` (a uuid).",
  rateLimit: "Client-side request budget, such as `10/10s` (the default), or `off`.",
  rateLimitStore:
    "A Redis URL (`redis://[user:password@]host:port[/db]`, `rediss://` for TLS) where every machine on the key " +
    "keeps one budget; default none (the budget of this machine).",
};

/** A property of the schema: a JSON type or a reference, a description, whether it is secret. */
type PropertySpec = { type?: string; items?: PropertySpec; $ref?: string } & Record<string, unknown>;
type Properties = Record<string, PropertySpec>;

const PACKAGE = "dbcloud";
/**
 * Where the repository is published. The Go SDK's module path derives from it, so `go get` finds
 * `sdk/go` there; a fork that publishes elsewhere changes this line and runs `npm run sdk`.
 */
export const REPOSITORY = "https://github.com/pulumi-dbcloud/pulumi-dbcloud";
const GO_MODULE = `${new URL(REPOSITORY).host}${new URL(REPOSITORY).pathname}/sdk/go`;
const token = (name: string) => `${PACKAGE}:index:${name}`;

/** An input from its zod schema: its JSON type, and the values an enumeration allows named. */
function inputSpec(where: string, description: string, schema: z.ZodType): PropertySpec {
  const json = z.toJSONSchema(schema, { unrepresentable: "any" }) as { type?: string; enum?: unknown[] };
  if (!json.type) throw new Error(`schema: ${where} has no JSON type`);
  const spec = { type: json.type, description };
  if (json.enum) spec.description += ` One of ${json.enum.map((value) => `\`${value}\``).join(", ")}.`;
  return spec;
}

/** A kind as the schema writes it: a primitive, `X[]`, or a reference to object type `X`. */
function kindSpec(kind: string): PropertySpec {
  if (kind.endsWith("[]")) return { type: "array", items: kindSpec(kind.slice(0, -2)) };
  return ["string", "number", "boolean"].includes(kind) ? { type: kind } : { $ref: `#/types/${token(kind)}` };
}

/** The properties of a table of kinds and descriptions (an object type, or outputs). */
function fromTable(table: OutputTable, secret: (name: string) => boolean = () => false): Properties {
  const properties: Properties = {};
  for (const [name, [kind, description]] of Object.entries(table))
    properties[name] = { ...kindSpec(kind), description, ...(secret(name) ? { secret: true } : {}) };
  return properties;
}

function resourceSpec({ spec }: ResourceKind) {
  const fields = Object.entries(spec.fields());
  const inputProperties: Properties = {};
  for (const [name, { schema, description }] of fields)
    inputProperties[name] = inputSpec(`${spec.name}.${name}`, description, schema);
  const requiredInputs = fields
    // An input from the config may be left out although check requires it.
    .filter(([, { required, fromConfig }]) => required && !fromConfig)
    .map(([name]) => name);
  // Every output holds each input that has a value after defaults, and the outputs read.
  const alwaysSet = fields.filter(([, field]) => field.required || field.default !== undefined);
  return {
    description: spec.description,
    inputProperties,
    requiredInputs,
    properties: { ...inputProperties, ...fromTable(spec.outputs) },
    required: [...alwaysSet.map(([name]) => name), ...Object.keys(spec.outputs)],
    // The dynamic resource's type: the alias a stack moves its resources with.
    aliases: [{ type: `pulumi-nodejs:dynamic/dbcloud:${spec.name}` }],
  };
}

/** The object types the resources' outputs name. */
function resourceTypes() {
  const types = RESOURCES.flatMap(({ spec }) => Object.entries(spec.types ?? {}));
  return Object.fromEntries(
    types.map(([name, { description, properties }]) => [
      token(name),
      { type: "object", description, properties: fromTable(properties), required: Object.keys(properties) },
    ]),
  );
}

function configVariables(): Properties {
  const variables: Properties = {};
  for (const [name, setting] of Object.entries(CONFIG_SETTINGS)) {
    variables[name] = {
      type: "string",
      description: `${CONFIG_DESCRIPTIONS[name]} Default: environment variable \`${setting.envVar}\`.`,
      defaultInfo: { environment: [setting.envVar] },
      ...(setting.secret ? { secret: true } : {}),
    };
  }
  return variables;
}

function getServiceSpec() {
  const fields = serviceRunStateSpec.fields();
  const input = (name: "organizationId" | "serviceId", description: string) =>
    inputSpec(`getService.${name}`, description, fields[name].schema);
  return {
    description:
      "Reads one service: every field the API returns. Secret-looking fields (`encryptionKey`, and " +
      "credential-like fields the API adds later) are returned as secrets.",
    inputs: {
      properties: {
        organizationId: input("organizationId", ORGANIZATION_DESCRIPTION),
        serviceId: input("serviceId", "The service to read (a uuid)."),
      },
      required: ["serviceId"],
    },
    outputs: { properties: fromTable(SERVICE_FIELDS, (name) => holdsSecret({ [name]: "set" })) },
  };
}

export function packageSchema() {
  const variables = configVariables();
  return {
    name: PACKAGE,
    displayName: "dbcloud",
    version: PACKAGE_VERSION,
    description:
      "Declare a database service running or stopped, and delete its reverse private endpoints on destroy.",
    keywords: ["pulumi", PACKAGE, "category/database"],
    license: "Apache-2.0",
    repository: REPOSITORY,
    publisher: "pulumi-dbcloud",
    // The SDKs carry the package's version (pulumi-plugin.json, the wheel's version, go.mod).
    meta: { supportPack: true },
    config: { variables },
    provider: {
      description: "The dbcloud provider: its settings default from the environment.",
      inputProperties: variables,
    },
    types: {
      [token("ServiceEndpoint")]: {
        type: "object",
        description: "One endpoint of a service.",
        properties: fromTable(ENDPOINT_FIELDS),
      },
      [token("IpAccessListEntry")]: {
        type: "object",
        description: "One entry of a service's IP access list.",
        properties: fromTable(IP_ACCESS_FIELDS),
      },
      ...resourceTypes(),
    },
    resources: Object.fromEntries(RESOURCES.map((kind) => [kind.token, resourceSpec(kind)])),
    functions: { [GET_SERVICE]: getServiceSpec() },
    language: {
      nodejs: { packageName: "pulumi-dbcloud-sdk", dependencies: { "@pulumi/pulumi": "^3.139.0" } },
      python: {
        packageName: "pulumi_dbcloud",
        // The generated code uses pulumi.type_token, which the Python SDK has from 3.165.0.
        requires: { pulumi: ">=3.165.0,<4.0.0" },
        pythonRequires: ">=3.9",
        respectSchemaVersion: true,
        pyproject: { enabled: true },
      },
      go: {
        importBasePath: `${GO_MODULE}/${PACKAGE}`,
        modulePath: GO_MODULE,
        generateResourceContainerTypes: true,
        respectSchemaVersion: true,
      },
      java: { basePackage: "io.github.pulumidbcloud" },
      csharp: { rootNamespace: "DbCloud", packageReferences: { Pulumi: "3.*" } },
    },
  };
}

/** The schema as GetSchema returns it, built once per process. */
let built: string | undefined;
export function schemaJson(): string {
  return (built ??= JSON.stringify(packageSchema()));
}
