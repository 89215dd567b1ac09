import { configure } from "../../src/provider";

/**
 * The provider's stack config (the dbcloud:* keys) for an API at `api.url` reached with its key:
 * what a test hands to `configure`, to an engine stack or to a program under mocks.
 * `organizationId`, when given, is the default organization; `rateLimit` is the setting's text.
 */
export function providerConfig(
  api: { url: string; keyId: string; keySecret: string },
  settings: { organizationId?: string; rateLimit: string },
): Record<string, string> {
  return {
    "dbcloud:apiUrl": api.url,
    "dbcloud:apiKeyId": api.keyId,
    "dbcloud:apiKeySecret": api.keySecret,
    ...(settings.organizationId === undefined ? {} : { "dbcloud:organizationId": settings.organizationId }),
    "dbcloud:rateLimit": settings.rateLimit,
  };
}

/** Hands `config` to the provider as the engine's `configure` does with the stack config. */
export function configureProvider(config: Record<string, string>): Promise<void> {
  return configure({ config: { get: (key: string) => config[key] } });
}
