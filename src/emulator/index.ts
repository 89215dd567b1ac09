// The local emulator of the management API: a real HTTP server for tests, the demo and anyone who
// wants to try a stack without an account. Node built-ins only: it imports nothing from the api or
// resources layers, so it runs on its own from the CLI.
export { startEmulator } from "./emulator";
export { DEFAULT_TRANSITIONS } from "./defaults";
export { EmulatorInputError } from "./input/errors";
export { DEFAULT_WAREHOUSE_RULES } from "./model/warehouse";
export { warehouseSeed } from "./warehouse-seed";
export type { WarehouseSeed, WarehouseSeedOptions, WarehouseServiceSeed } from "./warehouse-seed";
export type {
  ApiRoute,
  EchoForm,
  EchoPlace,
  Emulator,
  EmulatorOptions,
  Fault,
  FaultRoute,
  RateLimit,
  RateLimitHeaderForm,
  RequestLogEntry,
  ScheduledState,
  SeedService,
  ServiceView,
  TransitionTimes,
  WarehouseRefusal,
  WarehouseRule,
  WarehouseRules,
} from "./types";
