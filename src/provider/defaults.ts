/** How long create and update of a ServiceRunState wait for the state unless told otherwise, in seconds. */
export const DEFAULT_TIMEOUT_SECONDS = 1200;

/** Longest wait any timeout input may ask for, in seconds: a day. */
export const MAX_TIMEOUT_SECONDS = 24 * 3600;

/** What destroying a ServiceRunState does to the service unless told otherwise. */
export const DEFAULT_ON_DESTROY = "leave";

/** How long destroy may spend deleting an endpoint, retries included, in seconds. */
export const DEFAULT_DELETE_TIMEOUT_SECONDS = 300;

/** How long a read (refresh, or the GET of an endpoint's create) may take, retries included, in seconds. */
export const READ_TIMEOUT_SECONDS = 120;
