import { BadRequestError, NotFoundError } from "../api/errors";

/** A 400 message about the caller rather than the thing asked for: never "gone". */
const ABOUT_THE_CALLER =
  /\b(api[ _-]?keys?|key[ _-]?ids?|keyid|secrets?|tokens?|credentials?|(?:un)?auth\w*|organi[sz]ation\w*|org[ _-]?ids?|requests?|permissions?|roles?)\b/i;

/** What the answers that count as "already gone" may name (see the README's list). */
const SUBJECTS: Record<"service" | "endpoint", string> = {
  service: "service(?:[ _-]?id)?",
  endpoint: "(?:reverse[ _-]?private[ _-]?)?endpoint(?:[ _-]?id)?",
};

/**
 * Whether an error means the thing asked for does not exist: a 404 always; a 400 only when its
 * message clearly says that a service or endpoint (as `subjects` allows) was not found, or is an
 * `Invalid <service|endpoint> id` (some API versions answer so for a well-formed unknown id), and
 * says nothing of the key, the organization or the request (`400 Invalid API key id` is not gone).
 */
export function isGone(
  error: unknown,
  subjects: readonly ("service" | "endpoint")[] = ["service", "endpoint"],
): boolean {
  if (error instanceof NotFoundError) return true;
  if (!(error instanceof BadRequestError)) return false;
  const message = error.serverMessage?.trim();
  if (!message || ABOUT_THE_CALLER.test(message)) return false;
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
