import { CONFIG_SETTINGS, readSetting } from "./settings";

/*
 * The `dbcloud:*` stack config the engine hands to a provider's `configure`. A provider host
 * serves one stack, so one map per process holds it for the calls that follow.
 */
const stackConfig = new Map<string, string>();

/**
 * `configure` of both providers: keep the `dbcloud:*` stack config for the calls that follow. The
 * config given replaces the one kept: a key it no longer holds is unset, not kept from before.
 */
export function configureFromStack(request: { config: { get(key: string): unknown } }): void {
  for (const setting of Object.values(CONFIG_SETTINGS)) {
    const value = request.config.get(setting.configKey);
    if (value !== undefined && value !== null) stackConfig.set(setting.configKey, String(value));
    else stackConfig.delete(setting.configKey);
  }
}

/** One stack config value as `configure` received it. */
export function stackSetting(key: string): string | undefined {
  return stackConfig.get(key);
}

/** Default organization: stack config `dbcloud:organizationId`, then `DBCLOUD_ORGANIZATION_ID`. */
export function defaultOrganizationId(): string | undefined {
  return readSetting("organizationId", stackSetting, process.env);
}
