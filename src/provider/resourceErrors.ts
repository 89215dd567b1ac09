import { BadRequestError, DbcloudError, NotFoundError } from "../api/errors";

/** A message about the caller rather than the thing asked for: never "gone". */
const ABOUT_THE_CALLER =
  /\b(api[ _-]?keys?|key[ _-]?ids?|keyid|secrets?|tokens?|credentials?|(?:un)?auth\w*|organi[sz]ation\w*|org[ _-]?ids?|requests?|permissions?|roles?)\b/i;

const SUBJECTS = {
  service: "service(?:[ _-]?id)?",
  endpoint: "(?:reverse[ _-]?private[ _-]?)?endpoint(?:[ _-]?id)?",
};
type Subject = keyof typeof SUBJECTS;

const BARE_NOT_FOUND = /^not[ _-]?found\W*$/i;

/**
 * Whether an error means the service or endpoint itself is absent: a 404 or 400 whose message says so
 * and nothing of the caller, or a bare 404. `404 Organization not found` is not gone.
 */
export function isGone(error: unknown, subjects: readonly Subject[] = ["service", "endpoint"]): boolean {
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

/** A resource's operation failed for the reason in `cause`; the message says what that means for the stack. */
export class ResourceOperationError extends DbcloudError {}

/** Makes the engine record the resource (created, failed to initialise); the host reads `id`, `properties`, `reasons`. */
export class ResourceInitError extends ResourceOperationError {
  readonly reasons: string[];
  constructor(
    message: string,
    readonly id: string,
    readonly properties: Record<string, unknown>,
  ) {
    super(message);
    this.reasons = [message];
  }
}
