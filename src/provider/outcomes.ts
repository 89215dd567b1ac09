import { BadRequestError, NotFoundError } from "../api/errors";

/**
 * Whether an error means the thing asked for does not exist. 404 always; 400 only when its
 * message says so (some API versions answer `400 Invalid ... id` for a well-formed unknown id).
 */
export function isGone(error: unknown): boolean {
  if (error instanceof NotFoundError) return true;
  if (!(error instanceof BadRequestError)) return false;
  return /not found|^invalid .*\bid\b/i.test(error.serverMessage ?? "");
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
