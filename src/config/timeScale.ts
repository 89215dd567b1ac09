import { ConfigurationError } from "../api/errors";

/** The smallest `DBCLOUD_TIME_SCALE`: a 20-minute timeout still lasts over a second. */
export const MIN_TIME_SCALE = 0.001;

/**
 * `DBCLOUD_TIME_SCALE` multiplies every wait of ours (polls, grace, progress, read deadlines,
 * retry backoff): the tests and the demo run real transitions in seconds with it. Waits the
 * server asks for (Retry-After) are never scaled.
 */
export function timeScale(): number {
  const raw = process.env.DBCLOUD_TIME_SCALE;
  if (raw === undefined || raw === "") return 1;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < MIN_TIME_SCALE || value > 1) {
    throw new ConfigurationError([
      `DBCLOUD_TIME_SCALE must be a number from ${MIN_TIME_SCALE} to 1, got ${JSON.stringify(raw)}`,
    ]);
  }
  return value;
}
