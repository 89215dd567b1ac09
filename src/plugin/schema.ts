import { z } from "zod";
import { holdsSecret } from "../api/redact";
import { PACKAGE_VERSION } from "../api/version";
import { CONFIG_SETTINGS } from "./providerInternals";
import {
  CONFIG_DESCRIPTIONS,
  ENDPOINT_FIELDS,
  GET_SERVICE_DESCRIPTION,
  IP_ACCESS_FIELDS,
  PROPERTY_DESCRIPTIONS,
  RESOURCE_DESCRIPTIONS,
  SERVICE_FIELDS,
  type FieldTable,
} from "./descriptions";
import { GET_SERVICE } from "./invoke";
import {
  reversePrivateEndpointDeletionFields,
  serviceRunStateDefaults,
  serviceRunStateFields,
  serviceRunStateOutputs,
  type FieldSchemas,
} from "./providerInternals";
import { RESOURCES } from "./resources";

/*
 * The package schema `pulumi package add` generates SDKs from, built from the provider code's own
 * definitions so the two cannot drift: the inputs from the zod field schemas check validates
 * with, the outputs from what the provider returns, the function's fields from the `Service`
 * type (descriptions.ts), the config from the provider's settings.
 */

export interface PropertySpec {
  type?: string;
  items?: PropertySpec;
  $ref?: string;
  description?: string;
  secret?: boolean;
  defaultInfo?: { environment: string[] };
}
type Properties = Record<string, PropertySpec>;

const PACKAGE = "dbcloud";
/**
 * Where the repository is published. The Go SDK's module path derives from it, so `go get` finds
 * `sdk/go` there; a fork that publishes elsewhere changes this line and runs `npm run sdk`.
 */
export const REPOSITORY = "https://github.com/pulumi-dbcloud/pulumi-dbcloud";
const GO_MODULE = `${new URL(REPOSITORY).host}${new URL(REPOSITORY).pathname}/sdk/go`;
const token = (name: string) => `${PACKAGE}:index:${name}`;
const ref = (name: string): PropertySpec => ({ $ref: `#/types/${token(name)}` });

/** Inputs a resource may leave out although check requires them: they default from the config. */
const DEFAULTED_FROM_CONFIG = ["organizationId"];
/** The object types of object-valued outputs, by property. */
const OBJECT_OUTPUTS: Record<string, string> = { endpoints: "ServiceEndpoint", lastCommand: "LastCommand" };

function described(resource: string, name: string, spec: PropertySpec): PropertySpec {
  const description = PROPERTY_DESCRIPTIONS[resource]?.[name];
  if (!description) throw new Error(`schema: no description for ${resource}.${name}`);
  return { ...spec, description };
}

/** An input from its zod schema: its JSON type, and the values an enumeration allows named. */
function inputSpec(resource: string, name: string, schema: z.ZodType): PropertySpec {
  const json = z.toJSONSchema(schema, { unrepresentable: "any" }) as { type?: string; enum?: unknown[] };
  if (!json.type) throw new Error(`schema: ${resource}.${name} has no JSON type`);
  const spec = described(resource, name, { type: json.type });
  if (json.enum) spec.description += ` One of ${json.enum.map((value) => `\`${value}\``).join(", ")}.`;
  return spec;
}

/** An output's spec from a sample value the provider returned. */
function outputSpec(resource: string, name: string, sample: unknown): PropertySpec {
  const objectType = OBJECT_OUTPUTS[name];
  if (Array.isArray(sample))
    return described(resource, name, {
      type: "array",
      items: objectType ? ref(objectType) : { type: typeof sample[0] },
    });
  if (sample !== null && typeof sample === "object") {
    if (!objectType) throw new Error(`schema: no object type for ${resource}.${name}`);
    return described(resource, name, ref(objectType));
  }
  return described(resource, name, { type: typeof sample });
}

function resourceSpec(name: string, fields: FieldSchemas, sampleOutputs: Record<string, unknown>) {
  const inputProperties: Properties = {};
  for (const [field, { schema }] of Object.entries(fields))
    inputProperties[field] = inputSpec(name, field, schema);
  const properties: Properties = { ...inputProperties };
  const outputs = Object.keys(sampleOutputs);
  for (const key of outputs) properties[key] ??= outputSpec(name, key, sampleOutputs[key]);
  const requiredInputs = Object.entries(fields)
    .filter(([field, { required }]) => required && !DEFAULTED_FROM_CONFIG.includes(field))
    .map(([field]) => field);
  const kind = RESOURCES.find((candidate) => candidate.token === token(name))!;
  return {
    description: RESOURCE_DESCRIPTIONS[name],
    inputProperties,
    requiredInputs,
    properties,
    required: outputs,
    aliases: [{ type: kind.dynamicType }],
  };
}

/** An object type (or property map) from a field table of the `Service` type. */
function fromTable<T>(table: FieldTable<T>, secret: (name: string) => boolean = () => false): Properties {
  const properties: Properties = {};
  for (const [name, [kind, description]] of Object.entries(table) as [string, [string, string]][]) {
    const type: PropertySpec = kind.endsWith("[]")
      ? { type: "array", items: kind === "string[]" ? { type: "string" } : ref(kind.slice(0, -2)) }
      : { type: kind };
    properties[name] = { ...type, description, ...(secret(name) ? { secret: true } : {}) };
  }
  return properties;
}

const SAMPLE_ID = "00000000-0000-4000-8000-000000000000";

/** What ServiceRunState returns, for a service with one endpoint: the names and kinds of its outputs. */
function serviceRunStateSample(): Record<string, unknown> {
  const inputs = serviceRunStateDefaults({
    organizationId: SAMPLE_ID,
    serviceId: SAMPLE_ID,
    state: "running",
  });
  const endpoint = { protocol: "https", host: "h", port: 1, username: "u" };
  return { ...serviceRunStateOutputs(inputs, { state: "running", endpoints: [endpoint] }) };
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
  const fields = serviceRunStateFields();
  return {
    description: GET_SERVICE_DESCRIPTION,
    inputs: {
      properties: {
        organizationId: inputSpec("getService", "organizationId", fields.organizationId.schema),
        serviceId: inputSpec("getService", "serviceId", fields.serviceId.schema),
      },
      required: ["serviceId"],
    },
    outputs: { properties: fromTable(SERVICE_FIELDS, (name) => holdsSecret({ [name]: "set" })) },
  };
}

/** The package schema, as an object. */
export function packageSchema() {
  const runState = serviceRunStateSample();
  const lastCommand = runState.lastCommand as Record<string, unknown>;
  const endpointFields = reversePrivateEndpointDeletionFields();
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
      [token("LastCommand")]: {
        type: "object",
        description: "The last start or stop a ServiceRunState sent.",
        properties: Object.fromEntries(
          Object.keys(lastCommand).map((key) => [key, outputSpec("LastCommand", key, lastCommand[key])]),
        ),
        required: Object.keys(lastCommand),
      },
    },
    resources: {
      [token("ServiceRunState")]: resourceSpec("ServiceRunState", serviceRunStateFields(), runState),
      [token("ReversePrivateEndpointDeletion")]: resourceSpec(
        "ReversePrivateEndpointDeletion",
        endpointFields,
        Object.fromEntries(Object.keys(endpointFields).map((key) => [key, ""])),
      ),
    },
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
