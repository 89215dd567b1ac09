import { BadRequestError, NotFoundError } from "../api/errors";

/** A 400 message about the caller rather than the thing asked for: never "gone". */
const ABOUT_THE_CALLER =
  /\b(api[ _-]?keys?|key[ _-]?ids?|keyid|secrets?|tokens?|credentials?|(?:un)?auth\w*|organi[sz]ation\w*|org[ _-]?ids?|requests?|permissions?|roles?)\b/i;

/** What the answers that count as "already gone" may name (see the README's list). */
const SUBJECTS: Record<"service" | "endpoint", string> = {
  service: "service(?:[ _-]?id)?",
  endpoint: "(?:reverse[ _-]?private[ _-]?)?endpoint(?:[ _-]?id)?",
};

/** A 404's message that adds nothing to the status: the thing at the path asked for is absent. */
const BARE_NOT_FOUND = /^not[ _-]?found\W*$/i;

/**
 * Whether an error means the thing asked for does not exist: only the service or the endpoint
 * itself (as `subjects` allows) being absent, whatever the status says. A 404 or a 400 counts
 * when its message clearly says that a service or endpoint was not found, or is an
 * `Invalid <service|endpoint> id` (some API versions answer so for a well-formed unknown id), and
 * says nothing of the key, the organization or the request; a 404 also when its message adds
 * nothing to the status (none, or a bare "Not found"). `404 Organization not found` is not gone,
 * nor is a 404 naming anything else (a route, a page): the endpoint may still exist.
 */
export function isGone(
  error: unknown,
  subjects: readonly ("service" | "endpoint")[] = ["service", "endpoint"],
): boolean {
  if (!(error instanceof NotFoundError || error instanceof BadRequestError)) return false;
  const message = error.serverMessage?.trim();
  if (!message || BARE_NOT_FOUND.test(message)) return error instanceof NotFoundError;
  if (ABOUT_THE_CALLER.test(message)) return false;
  const subject = `(?:${subjects.map((name) => SUBJECTS[name]).join("|")})`;
  return [
    new RegExp(`\\b${subject}\\b[^.;]*\\b(?:was |is )?not found\\b`, "i"),
    new RegExp(`^not found\\W+(?:the )?${subject}\\b`, "i"),
    new RegExp(`^invalid ${subject}(?:[ _-]?id)?\\b`, "i"),
  ].some((pattern) => pattern.test(message));
}

/**
 * An error that makes the engine record the resource (created, but failed to initialise), so
 * the next `pulumi up` carries on instead of forgetting it. A plain object-carrying Error, not a
 * class: the provider host only looks for `id`, `properties` and `reasons`.
 */
export function resourceInitError(
  message: string,
  id: string,
  properties: Record<string, unknown>,
): Error & { id: string; properties: Record<string, unknown>; reasons: string[] } {
  const error = new Error(message) as Error & {
    id: string;
    properties: Record<string, unknown>;
    reasons: string[];
  };
  error.id = id;
  error.properties = properties;
  error.reasons = [message];
  return error;
}
