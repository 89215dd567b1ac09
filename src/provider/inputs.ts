import { z } from "zod";
import { InvalidInputError, quoted } from "../api/errors";
import { isUuid, UNKNOWN_VALUE } from "../api/guards";
import { MAX_TIMEOUT_SECONDS } from "./defaults";

/*
 * What the entry points accept. State may be old, hand-edited or written by another version: every
 * entry point re-validates what it acts on, and that the id names what the properties name.
 */

/** The engine's placeholder for a value not known yet (preview): check and diff never reject it. */
export { UNKNOWN_VALUE };

export type CheckFailure = { property: string; reason: string };

/** Properties as the engine passes them: inputs, outputs or state, of any version. */
export type Props = Record<string, unknown>;

export type FieldSchemas = Record<string, { schema: z.ZodType; required?: boolean; secret?: boolean }>;

export function uuidField(name: string) {
  return z.string({ error: `${name} must be a string` }).refine(isUuid, {
    error: `${name} must be a uuid, like 3f2a1c9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b`,
  });
}

/** A positive number of seconds, at most a day: never NaN, never a tight loop or a year. */
export function timeoutField(name: string) {
  return z
    .number({ error: `${name} must be a number of seconds` })
    .positive({ error: `${name} must be greater than 0` })
    .max(MAX_TIMEOUT_SECONDS, { error: `${name} must be at most ${MAX_TIMEOUT_SECONDS} (24 hours)` });
}

/** Each field on its own, so that every problem names its property and what it got (a secret unquoted). */
export function checkFields(news: Props, fields: FieldSchemas, allowUnknown = true): CheckFailure[] {
  const failures: CheckFailure[] = [];
  for (const [property, { schema, required, secret }] of Object.entries(fields)) {
    const value = news[property];
    if (value === UNKNOWN_VALUE && allowUnknown) continue;
    if (value === undefined || value === null) {
      if (required) failures.push({ property, reason: `${property} is required` });
      continue;
    }
    const result = schema.safeParse(value);
    if (!result.success) {
      const reasons = [...new Set(result.error.issues.map((issue) => issue.message))];
      const got = secret ? "a secret value" : quoted(value);
      failures.push({ property, reason: `${reasons.join("; ")} (got ${got})` });
    }
  }
  return failures;
}

/** Re-validation at an entry point other than check: throws, listing every problem. */
export function requireValid(what: string, props: Props, fields: FieldSchemas, allowUnknown = false): void {
  const failures = checkFields(props, fields, allowUnknown);
  if (failures.length) {
    throw new InvalidInputError(
      `${what}: refusing to act on invalid properties (the stack's state may be old or edited by hand; ` +
        `fix the program, or run \`pulumi refresh\`):\n- ${failures.map((f) => `${f.property}: ${f.reason}`).join("\n- ")}`,
    );
  }
}

/** The fields, those the caller received as secrets marked secret too. */
export function withSecrets(fields: FieldSchemas, secretKeys: ReadonlySet<string> = new Set()): FieldSchemas {
  const marked: FieldSchemas = {};
  for (const [name, field] of Object.entries(fields))
    marked[name] = { ...field, secret: field.secret || secretKeys.has(name) };
  return marked;
}

export function pickFields(fields: FieldSchemas, names: readonly string[]): FieldSchemas {
  return Object.fromEntries(names.map((name) => [name, fields[name]]));
}

/** Refuses `operation` unless `id` is the properties' `values` joined by "/"; the message names each by its label. */
export function requireIdOfProperties(
  operation: string,
  id: unknown,
  labels: readonly string[],
  values: readonly unknown[],
): void {
  if (id === values.map(String).join("/")) return;
  const describe = (parts: readonly unknown[]) =>
    labels.map((label, i) => `${label} ${quoted(parts[i])}`).join(", ");
  const parts = typeof id === "string" ? id.split("/") : [];
  const fromId = parts.length === labels.length ? describe(parts) : `id ${quoted(id)}`;
  throw new InvalidInputError(
    `${operation} refused: the resource id names ${fromId}, but its properties name ${describe(values)}. ` +
      `The state was edited, imported or written by another version; nothing was sent. Make them agree ` +
      `(pulumi state edit), or drop the resource from the state (pulumi state delete <urn>) and import it again.`,
  );
}
