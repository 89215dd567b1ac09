import { ApiClient } from "../api/client";
import { DEFAULT_RETRY_POLICY } from "../api/retry";
import type { ResolvedConfig } from "./settings";
import { timeScale } from "./timeScale";

/**
 * The client for a resolved configuration, with retry waits scaled by `DBCLOUD_TIME_SCALE`. The
 * providers keep one per configuration in the host process; `getService` builds one per call
 * from the program's stack config. Neither is kept anywhere it could be serialized.
 */
export function apiClientFor(config: ResolvedConfig, log: (line: string) => void): ApiClient {
  const scale = timeScale();
  return new ApiClient({
    apiUrl: config.apiUrl,
    keyId: config.keyId,
    keySecret: config.keySecret,
    rateLimit: config.rateLimit,
    retry: {
      baseDelayMs: DEFAULT_RETRY_POLICY.baseDelayMs * scale,
      maxDelayMs: DEFAULT_RETRY_POLICY.maxDelayMs * scale,
    },
    log,
  });
}
