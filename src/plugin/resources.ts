import { InvalidInputError, quoted } from "../api/errors";
import * as provider from "../provider";
import type { Props } from "../provider/inputs";
import {
  checkFields,
  defaultOrganizationId,
  idOf,
  MAX_TIMEOUT_SECONDS,
  pickFields,
  SPECS,
  timeoutInput,
  type ResourceSpec,
} from "./providerInternals";

/*
 * The plugin's resource types, each derived from a resource's spec and mapped onto the provider
 * code the dynamic resources run (the `pulumi-dbcloud/provider` functions, by their stored names):
 * the plugin adds only what the engine gives a plugin and not a dynamic provider (its timeouts,
 * import by id).
 */

type Handler = (...args: never[]) => Promise<unknown>;

export interface ResourceKind {
  token: string;
  spec: ResourceSpec;
  /** The dynamic resource's type: the alias a stack moves its resources with. */
  dynamicType: string;
  check(
    olds: Props,
    news: Props,
    secretKeys: ReadonlySet<string>,
  ): Promise<{ inputs: Props; failures: { property: string; reason: string }[] }>;
  diff(id: string, olds: Props, news: Props): Promise<{ changes: boolean; replaces: string[] }>;
  create(inputs: Props): Promise<{ id: string; outs: object }>;
  read(id: string, props: Props): Promise<{ id: string; props: Props }>;
  update(id: string, olds: Props, news: Props): Promise<{ outs: object }>;
  delete(id: string, props: Props): Promise<void>;
  /** The input that create and update wait within: the engine's `timeout` goes there. */
  waitTimeoutInput?: string;
  /** The input that delete waits within. */
  deleteTimeoutInput?: string;
  /** `pulumi import`: the resource's id and the properties to read from, given only the import id. */
  importFrom(id: string): { id: string; props: Props };
  /** `pulumi import`: the inputs to adopt, from what Read found. */
  adoptedInputs(outputs: Props): Props;
  /** The outputs read from the API rather than given: unknown until a create or update has run. */
  computedOutputs: readonly string[];
  /**
   * The inputs the dynamic resource fills from `customTimeouts`, each with the value it has here
   * when the program leaves it out (the engine's timeouts stand in for it instead).
   */
  customTimeoutInputs: Readonly<Props>;
}

/** What the engine's timeout (seconds, 0 when none) makes of an input, within the provider's bound. */
export function engineTimeout(seconds: number): number | undefined {
  return seconds > 0 ? Math.min(seconds, MAX_TIMEOUT_SECONDS) : undefined;
}

/**
 * The properties an import id names, right-aligned on the spec's import fields (a missing
 * organization from config), checked as the resource's ids are: an import error names the id as
 * given and its expected form, never the state.
 */
function importedIds(token: string, spec: ResourceSpec, id: string): Props {
  const { form, fields, minParts } = spec.importId;
  const cannot = `${token}: cannot import ${quoted(id)}: the import id is ${form}`;
  const parts = id.split("/");
  if (parts.length < minParts || parts.length > fields.length || !parts.every(Boolean))
    throw new InvalidInputError(cannot);
  const given: Props = {};
  fields.forEach((field, i) => {
    const part = parts[i - (fields.length - parts.length)];
    given[field] = part ?? (field === "organizationId" ? defaultOrganizationId() : undefined);
  });
  const failures = checkFields(given, pickFields(spec.fields(), fields), false);
  if (!failures.length) return given;
  const reasons = failures.map(({ property, reason }) =>
    property === "organizationId" && given.organizationId === undefined
      ? "it names no organization, and none is configured: give it in the id, or set stack config " +
        "dbcloud:organizationId or environment variable DBCLOUD_ORGANIZATION_ID"
      : reason,
  );
  throw new InvalidInputError(`${cannot}; in this one, ${reasons.join("; ")}`);
}

/** The resource type of a spec: its handlers are the provider functions named after it. */
function kindOfSpec(spec: ResourceSpec): ResourceKind {
  const token = `dbcloud:index:${spec.name}`;
  const stored = spec.name[0].toLowerCase() + spec.name.slice(1);
  const handler = (operation: string) =>
    (provider as unknown as Record<string, Handler>)[`${stored}${operation}`] as never;
  const timeouts = Object.entries(spec.fields()).filter(([, field]) => field.timeouts);
  return {
    token,
    spec,
    dynamicType: `pulumi-nodejs:dynamic/dbcloud:${spec.name}`,
    check: handler("Check"),
    diff: handler("Diff"),
    create: handler("Create"),
    read: handler("Read"),
    update: handler("Update"),
    delete: handler("Delete"),
    waitTimeoutInput: timeoutInput(spec, "create"),
    deleteTimeoutInput: timeoutInput(spec, "delete"),
    importFrom(id) {
      const props = importedIds(token, spec, id);
      return { id: idOf(spec, props), props };
    },
    adoptedInputs: (outputs) => ({
      ...Object.fromEntries(spec.importId.fields.map((field) => [field, outputs[field]])),
      ...spec.adopt?.(outputs),
    }),
    computedOutputs: Object.keys(spec.outputs),
    customTimeoutInputs: Object.fromEntries(timeouts.map(([name, field]) => [name, field.default])),
  };
}

export const RESOURCES: readonly ResourceKind[] = SPECS.map(kindOfSpec);

/** The kind a URN's type names (`urn:pulumi:stack::project::<type>::name`, parents before `$`). */
export function kindOf(urn: string, type?: string): ResourceKind {
  const token = type || (urn.split("::")[2] ?? "").split("$").pop() || "";
  const kind = RESOURCES.find((candidate) => candidate.token === token);
  if (!kind) throw new InvalidInputError(`dbcloud: unknown resource type ${quoted(token)}`);
  return kind;
}
