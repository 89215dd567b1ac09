/*
 * Configuration: the `dbcloud:*` settings (stack config, then environment), the stack config a
 * provider host receives, the `DBCLOUD_TIME_SCALE` knob, and the API client they make. Used by
 * the providers (src/provider) and by `getService` (src/resources).
 */
export { apiClientFor } from "./client";
export {
  CONFIG_SETTINGS,
  readSetting,
  resolveConfig,
  type ResolvedConfig,
  type SettingName,
} from "./settings";
export { configureFromStack, defaultOrganizationId, stackSetting } from "./stack";
export { MIN_TIME_SCALE, timeScale } from "./timeScale";
