import * as pulumi from "@pulumi/pulumi";
import { ConfigurationError, InvalidInputError, quoted } from "../api/errors";
import { readSetting } from "../config";
import type { LastCommandOutput } from "../provider/lastCommand";
import type { EndpointOutput } from "../provider/serviceRunStateInputs";
import type { FieldsWith, InputsOf, OutputTable, ResourceSpec, ValuesOf } from "../provider/spec";

/*
 * Defaults resolved in the Pulumi program, not in the provider: the organization from stack config
 * or environment, and `customTimeouts` as seconds, since the provider host never sees resource options.
 */

/** The program's `dbcloud:*` stack config, by full key (`dbcloud:apiUrl`). */
export function programStackConfig(key: string): string | undefined {
  const [namespace, name] = key.split(":");
  return new pulumi.Config(namespace).get(name);
}

/** The configured organization; `what` (a resource, or getService) names the caller when none is set. */
export function programOrganizationId(what: string): string {
  const value = readSetting("organizationId", programStackConfig, process.env);
  if (!value) {
    throw new ConfigurationError([
      `${what}: organizationId is not set. Pass it as an argument, or set stack config ` +
        `dbcloud:organizationId (pulumi config set dbcloud:organizationId <uuid>) or environment variable ` +
        `DBCLOUD_ORGANIZATION_ID.`,
    ]);
  }
  return value;
}

const UNIT_SECONDS: Record<string, number> = { h: 3600, m: 60, s: 1 };

/** Parses a Go-style duration as used by `customTimeouts`: "90s", "20m", "1h30m", "1.5h". */
export function parseDurationSeconds(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^(\d+(\.\d+)?(h|m|s|ms))+$/.test(trimmed)) return undefined;
  let seconds = 0;
  for (const [, amount, unit] of trimmed.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s)/g))
    seconds += unit === "ms" ? Number(amount) / 1000 : Number(amount) * UNIT_SECONDS[unit];
  return seconds;
}

/** The longest of the `customTimeouts` named by `keys`, in seconds; undefined when none of them is set. */
export function customTimeoutSeconds(
  resourceType: string,
  name: string,
  timeouts: pulumi.CustomTimeouts | undefined,
  keys: readonly ("create" | "update" | "delete")[],
): number | undefined {
  const values: number[] = [];
  for (const key of keys) {
    const text = timeouts?.[key];
    if (text === undefined) continue;
    const seconds = parseDurationSeconds(text);
    if (seconds === undefined || seconds <= 0) {
      throw new InvalidInputError(
        `${resourceType} "${name}": customTimeouts.${key} ${quoted(text)} is not a duration; write it like "20m", "90s" or "1h30m".`,
      );
    }
    values.push(seconds);
  }
  return values.length ? Math.max(...values) : undefined;
}

/** A resource's arguments from its spec: each input a value or an `Input`, optional unless the program must give it. */
export type ArgsOf<S> =
  S extends ResourceSpec<infer F, OutputTable>
    ? { [K in keyof ValuesOf<F, Given<F>>]: pulumi.Input<ValuesOf<F, Given<F>>[K]> }
    : never;
type Given<F> = FieldsWith<F, { required: true; fromConfig?: undefined }>;

/** The TypeScript type of each output kind a spec names. */
interface OutputKinds {
  string: string;
  number: number;
  boolean: boolean;
  LastCommand: LastCommandOutput;
  "ServiceEndpoint[]": EndpointOutput[];
}

/** A resource's outputs from its spec: the inputs after defaults, and the outputs read. */
export type OutputsOf<S> =
  S extends ResourceSpec<infer F, infer O>
    ? { readonly [K in keyof InputsOf<F>]-?: pulumi.Output<InputsOf<F>[K]> } & {
        readonly [K in keyof O]: pulumi.Output<OutputKinds[O[K][0] & keyof OutputKinds]>;
      }
    : never;

/**
 * The properties a dynamic resource passes: each input as given, the organization and the
 * timeouts the program leaves out from its config and `customTimeouts`, and every output declared
 * (undefined), so that the engine fills them in.
 */
export function programProps(
  spec: ResourceSpec,
  name: string,
  args: object,
  opts?: pulumi.CustomResourceOptions,
) {
  const given = args as Record<string, unknown>;
  const props: Record<string, unknown> = {};
  for (const [field, { fromConfig, timeouts }] of Object.entries(spec.fields())) {
    let value = given[field];
    if (value == null && fromConfig) value = programOrganizationId(`${spec.name} "${name}"`);
    else if (value == null && timeouts)
      value = customTimeoutSeconds(spec.name, name, opts?.customTimeouts, timeouts);
    props[field] = value;
  }
  for (const output of Object.keys(spec.outputs)) props[output] = undefined;
  return props;
}
