import { InvalidInputError, quoted } from "../api/errors";
import { defaultOrganizationId } from "../config";
import * as provider from "../provider";
import { checkFields, pickFields, type CheckFailure, type Props } from "../provider/inputs";
import { reversePrivateEndpointDeletionSpec } from "../provider/reversePrivateEndpointDeletion";
import { serviceRunStateSpec } from "../provider/serviceRunStateInputs";
import { idOf, timeoutInput, type ResourceSpec } from "../provider/spec";

/*
 * The plugin's resource types: each resource's spec, the provider functions the dynamic resources
 * run (by their stored names, `<resource>Check` ...), and what the engine gives a plugin and not a
 * dynamic provider (its timeouts, import by id).
 */

function handlers(spec: ResourceSpec) {
  const stored = spec.name[0].toLowerCase() + spec.name.slice(1);
  const of = <T>(operation: string): T => {
    const handler = (provider as Record<string, unknown>)[`${stored}${operation}`];
    if (typeof handler !== "function")
      throw new Error(`pulumi-dbcloud/provider has no ${stored}${operation}`);
    return handler as T;
  };
  return {
    check: of<(olds: Props, news: Props, secretKeys: ReadonlySet<string>) => Promise<Checked>>("Check"),
    diff: of<(id: string, olds: Props, news: Props) => Promise<{ changes: boolean; replaces: string[] }>>(
      "Diff",
    ),
    create: of<(inputs: Props) => Promise<{ id: string; outs: object }>>("Create"),
    read: of<(id: string, props: Props) => Promise<{ id: string; props: Props }>>("Read"),
    update: of<(id: string, olds: Props, news: Props) => Promise<{ outs: object }>>("Update"),
    delete: of<(id: string, props: Props) => Promise<void>>("Delete"),
  };
}
type Checked = { inputs: Props; failures: CheckFailure[] };

/** The inputs an import id names: those whose change replaces the resource. */
const importFields = (spec: ResourceSpec) =>
  Object.entries(spec.fields()).flatMap(([name, field]) => (field.replaces ? [name] : []));

/**
 * The properties an import id names, right-aligned (a missing organization from config), checked
 * as the resource's ids are: an error names the id as given and its expected form, never the state.
 */
function importedIds(token: string, spec: ResourceSpec, id: string): Props {
  const { form, minParts } = spec.importId;
  const fields = importFields(spec);
  const cannot = `${token}: cannot import ${quoted(id)}: the import id is ${form}`;
  const parts = id.split("/");
  if (parts.length < minParts || parts.length > fields.length || !parts.every(Boolean))
    throw new InvalidInputError(cannot);
  const fromConfig = (field: string) => spec.fields()[field].fromConfig;
  const given: Props = {};
  fields.forEach((field, i) => {
    const part = parts[i - (fields.length - parts.length)];
    given[field] = part ?? (fromConfig(field) ? defaultOrganizationId() : undefined);
  });
  const failures = checkFields(given, pickFields(spec.fields(), fields), false);
  if (!failures.length) return given;
  const reasons = failures.map(({ property, reason }) =>
    fromConfig(property) && given[property] === undefined
      ? "it names no organization, and none is configured: give it in the id, or set stack config " +
        "dbcloud:organizationId or environment variable DBCLOUD_ORGANIZATION_ID"
      : reason,
  );
  throw new InvalidInputError(`${cannot}; in this one, ${reasons.join("; ")}`);
}

function kindOfSpec(spec: ResourceSpec) {
  const token = `dbcloud:index:${spec.name}`;
  return {
    token,
    spec,
    ...handlers(spec),
    /** The inputs that create and update, and delete, wait within: the engine's `timeout` goes there. */
    waitTimeoutInput: timeoutInput(spec, "create"),
    deleteTimeoutInput: timeoutInput(spec, "delete"),
    /** `pulumi import`: the id and the properties to read, from the import id alone. */
    importFrom(id: string) {
      const props = importedIds(token, spec, id);
      return { id: idOf(spec, props), props };
    },
    /** `pulumi import`: the inputs to adopt, from what Read found. */
    adoptedInputs: (outputs: Props): Props => ({
      ...Object.fromEntries(importFields(spec).map((field) => [field, outputs[field]])),
      ...spec.adopt?.(outputs),
    }),
  };
}

export type ResourceKind = ReturnType<typeof kindOfSpec>;

/** Every resource of the package, in the schema's order: adding a resource adds its spec here. */
export const RESOURCES: readonly ResourceKind[] = [
  serviceRunStateSpec,
  reversePrivateEndpointDeletionSpec,
].map(kindOfSpec);

/** The kind a URN's type names (`urn:pulumi:stack::project::<type>::name`, parents before `$`). */
export function kindOf(urn: string, type?: string): ResourceKind {
  const token = type || (urn.split("::")[2] ?? "").split("$").pop() || "";
  const kind = RESOURCES.find((candidate) => candidate.token === token);
  if (!kind) throw new InvalidInputError(`dbcloud: unknown resource type ${quoted(token)}`);
  return kind;
}
