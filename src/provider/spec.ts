import type { z } from "zod";
import { lazy } from "../api/lazy";
import { defaultOrganizationId } from "../config";
import {
  checkFields,
  requireIdOfProperties,
  requireValid,
  uuidField,
  withSecrets,
  UNKNOWN_VALUE,
  type FieldSchemas,
  type Props,
} from "./inputs";

/*
 * A resource said once: the providers' check, defaults and diff, the plugin's resource table and
 * schema, and the input and output types derive from its spec.
 */

/** The operations the program's `customTimeouts` (or the engine's timeouts) bound. */
export type TimeoutKey = "create" | "update" | "delete";

export interface FieldSpec<S extends z.ZodType = z.ZodType> {
  schema: S;
  /** What the schema and the generated SDKs show. */
  description: string;
  /** Check refuses inputs without it (organizationId after its configured default). */
  required?: boolean;
  /** Taken when it is left out. */
  default?: z.infer<S>;
  /** A change replaces the resource. */
  replaces?: boolean;
  /** Its value is never quoted back in a message. */
  secret?: boolean;
  /** Left out: the provider's configured organization (check), or the program's (the dynamic resource). */
  fromConfig?: boolean;
  /** The timeouts that stand in for it when left out. */
  timeouts?: readonly TimeoutKey[];
  /** A value its rule refuses is taken as the default where state is read unchecked (refresh). */
  invalidIsDefault?: boolean;
  /** Whether it changed beyond its value, given the old outputs (a run state's drift). */
  changed?: (olds: Props, news: Props) => boolean;
}

export type Fields = Record<string, FieldSpec>;

/** An output's kind (`string`, `number`, `boolean`, an object type's name, `X[]`) and description. */
export type OutputTable = Record<string, readonly [kind: string, description: string]>;

export interface ResourceSpec<F extends Fields = Fields, O extends OutputTable = OutputTable> {
  /** The type's name: `dbcloud:index:<name>`, the dynamic resource's `dbcloud:<name>`. */
  name: string;
  description: string;
  /** The inputs, in order: built on first use, as schemas are costly to build. */
  fields: () => F;
  /** The outputs beyond the inputs, which every output repeats. */
  outputs: O;
  /** Object types its outputs name. */
  types?: Record<string, { description: string; properties: OutputTable }>;
  /** The inputs its id joins with "/", and how a message names each. */
  id: { fields: readonly string[]; labels: readonly string[] };
  /** `pulumi import`: the id's form; its parts name the replacing inputs, right-aligned (those left out from config). */
  importId: { form: string; minParts: number };
  /** The inputs an import adopts beyond the id's, from what a read found. */
  adopt?: (outputs: Props) => Props;
}

export function defineResource<const F extends Fields, const O extends OutputTable>(
  spec: ResourceSpec<F, O>,
): ResourceSpec<F, O> {
  return { ...spec, fields: lazy(spec.fields) };
}

type Of<F> = F extends FieldSpec<infer S> ? z.infer<S> : never;
/** The fields of `F` whose spec is a `P`. */
export type FieldsWith<F, P> = { [K in keyof F]: F[K] extends P ? K : never }[keyof F];
/** Each field of `F` as its value: those in `Present` always there, the others optional. */
export type ValuesOf<F, Present> = { [K in keyof F as K extends Present ? K : never]: Of<F[K]> } & {
  [K in keyof F as K extends Present ? never : K]?: Of<F[K]>;
};

/** The inputs after defaults: those required or with a default are always there. */
export type InputsOf<F> = ValuesOf<F, FieldsWith<F, { required: true } | { default: unknown }>>;

/** Each input, left out or null, as its default; a field without either is left out. */
export function withDefaults<F extends Fields>(spec: ResourceSpec<F>, props: Props): InputsOf<F> {
  const inputs: Props = {};
  for (const [name, field] of Object.entries(spec.fields())) {
    let value = props[name];
    if (field.invalidIsDefault && value != null && !field.schema.safeParse(value).success) value = undefined;
    value ??= field.default;
    if (value !== undefined && value !== null) inputs[name] = value;
  }
  return inputs as InputsOf<F>;
}

/** The inputs an operation acts on: valid (`fields`), with defaults, and making `id` when given. */
export function validInputs<F extends Fields>(
  spec: ResourceSpec<F>,
  what: string,
  props: Props,
  id?: string,
  fields: FieldSchemas = spec.fields(),
): InputsOf<F> {
  const operation = `${spec.name} ${what}`;
  requireValid(operation, props, fields);
  const inputs = withDefaults(spec, props);
  const values = spec.id.fields.map((name) => (inputs as Props)[name]);
  if (id !== undefined) requireIdOfProperties(operation, id, spec.id.labels, values);
  return inputs;
}

const NO_ORGANIZATION =
  "organizationId is required: set it on the resource, or set stack config dbcloud:organizationId " +
  "or environment variable DBCLOUD_ORGANIZATION_ID";

/**
 * A resource's check and diff. Diff compares inputs with their defaults applied, so that state written
 * before an input existed shows no change; outputs beyond the inputs are never compared.
 */
export function checkAndDiff(spec: ResourceSpec) {
  const changed =
    (olds: Props, news: Props) =>
    ([name, field]: [string, FieldSpec]) =>
      news[name] === UNKNOWN_VALUE ||
      (olds[name] ?? field.default) !== (news[name] ?? field.default) ||
      (field.changed?.(olds, news) ?? false);
  return {
    async check(_olds: Props, news: Props, secretKeys?: ReadonlySet<string>) {
      const inputs: Props = { ...news };
      for (const [name, field] of Object.entries(spec.fields())) {
        const fallback = field.fromConfig ? defaultOrganizationId() : field.default;
        if (inputs[name] === undefined && fallback !== undefined) inputs[name] = fallback;
      }
      const failures = checkFields(inputs, withSecrets(spec.fields(), secretKeys));
      for (const failure of failures)
        if (spec.fields()[failure.property].fromConfig && inputs[failure.property] === undefined)
          failure.reason = NO_ORGANIZATION;
      return { inputs, failures };
    },
    async diff(_id: string, olds: Props, news: Props) {
      requireValid(`${spec.name} diff`, news, spec.fields(), true);
      const entries = Object.entries(spec.fields());
      const replaces = entries.filter(([, field]) => field.replaces).filter(changed(olds, news));
      const updates = entries.filter(([, field]) => !field.replaces).some(changed(olds, news));
      const names = replaces.map(([name]) => name);
      return { changes: names.length > 0 || updates, replaces: names, deleteBeforeReplace: false };
    },
  };
}

export function idOf(spec: ResourceSpec, inputs: Props): string {
  return spec.id.fields.map((name) => inputs[name]).join("/");
}

export function timeoutInput(spec: ResourceSpec, key: TimeoutKey): string | undefined {
  return Object.entries(spec.fields()).find(([, field]) => field.timeouts?.includes(key))?.[0];
}

export const ORGANIZATION_DESCRIPTION =
  "Organization of the service (a uuid). Default: the provider's `organizationId` (stack config " +
  "`dbcloud:organizationId`, then `DBCLOUD_ORGANIZATION_ID`).";

export const organizationIdField = () =>
  ({
    schema: uuidField("organizationId"),
    description: `${ORGANIZATION_DESCRIPTION} Changing it replaces the resource.`,
    required: true,
    replaces: true,
    fromConfig: true,
  }) as const;

export const serviceIdField = (description: string) =>
  ({ schema: uuidField("serviceId"), description, required: true, replaces: true }) as const;
