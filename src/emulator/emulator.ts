// startEmulator: wires the store, rate limit, faults and log to a node:http server, and exposes
// the same controls programmatically and under /_emulator/.
import type { AddressInfo } from "node:net";
import type { ControlTarget, ServiceDescription } from "./http/control-handler";
import { FaultRegistry } from "./http/fault-registry";
import { FixedWindowRateLimiter } from "./http/rate-limiter";
import { RequestLog } from "./http/request-log";
import { baseUrl, closeServer, createEmulatorServer, listen } from "./http/server";
import { EmulatorInputError, readOrThrow } from "./input/errors";
import { parseFault } from "./input/fault";
import { parseSeedService, readRateLimit, readScheduledState, readTransitions } from "./input/seed";
import { readMilliseconds, readNonEmptyString } from "./input/values";
import { readWarehouseRules } from "./input/warehouse-rules";
import { ServiceStore, type StoredService } from "./model/service-store";
import { resolveOptions } from "./options";
import type {
  Emulator,
  EmulatorOptions,
  Fault,
  RateLimit,
  RequestLogEntry,
  ScheduledState,
  SeedService,
  ServiceView,
  TransitionTimes,
  WarehouseRules,
} from "./types";

/** Starts an emulator listening on `options.host`:`options.port` (default 127.0.0.1, ephemeral port). */
export async function startEmulator(options?: EmulatorOptions): Promise<Emulator> {
  const resolved = resolveOptions(options);
  let transitions = resolved.transitions;
  let visibilityLagMs = resolved.visibilityLagMs;
  let warehouseRules = resolved.warehouseRules;
  const { now } = resolved;
  const store = new ServiceStore({
    now,
    transitions: () => transitions,
    visibilityLagMs: () => visibilityLagMs,
    warehouseRules: () => warehouseRules,
  });
  const rateLimiter = new FixedWindowRateLimiter(resolved.rateLimit, now);
  const faults = new FaultRegistry(resolved.random);
  const log = new RequestLog();
  const closing = new AbortController();
  for (const seed of resolved.services) store.add(seed);

  const requireService = (serviceId: string): StoredService => {
    const stored = store.get(serviceId);
    if (stored === undefined) throw new EmulatorInputError([`service ${serviceId} does not exist`], 404);
    return stored;
  };
  const emulator: ControlTarget = {
    url: "",
    keyId: resolved.keyId,
    keySecret: resolved.keySecret,
    close: async () => {},
    addService(seed: SeedService): ServiceView {
      const stored = store.add(parseSeedService(seed));
      return store.view(stored, store.trueState(stored));
    },
    removeService(serviceId: string): void {
      requireService(serviceId);
      store.remove(serviceId);
    },
    service(serviceId: string): ServiceView | undefined {
      const stored = store.get(serviceId);
      return stored === undefined ? undefined : store.view(stored, store.trueState(stored));
    },
    setState(serviceId: string, state: string, then?: ScheduledState): void {
      const stored = requireService(serviceId);
      readOrThrow((issues) => readNonEmptyString(state, "state", issues));
      const next =
        then === undefined ? undefined : readOrThrow((issues) => readScheduledState(then, "then", issues));
      store.setState(stored, state, next);
    },
    addEndpoint(serviceId: string, endpointId: string): void {
      const stored = requireService(serviceId);
      stored.endpointIds.add(readOrThrow((issues) => readNonEmptyString(endpointId, "endpointId", issues)));
    },
    hasEndpoint(serviceId: string, endpointId: string): boolean {
      return store.get(serviceId)?.endpointIds.has(endpointId) ?? false;
    },
    removeEndpoint(serviceId: string, endpointId: string): void {
      requireService(serviceId).endpointIds.delete(endpointId);
    },
    injectFault(fault: Fault): void {
      faults.add(parseFault(fault));
    },
    clearFaults(): void {
      faults.clear();
    },
    setRateLimit(limit: RateLimit | false): void {
      rateLimiter.setLimit(readOrThrow((issues) => readRateLimit(limit, "rateLimit", issues)));
    },
    setVisibilityLag(ms: number): void {
      visibilityLagMs = readOrThrow((issues) => readMilliseconds(ms, "visibilityLagMs", issues));
    },
    setTransitions(partial: Partial<TransitionTimes>): void {
      // Transitions already under way keep the end time they were given.
      transitions = {
        ...transitions,
        ...readOrThrow((issues) => readTransitions(partial, "transitions", issues)),
      };
    },
    setWarehouseRules(rules: Partial<WarehouseRules>): void {
      warehouseRules = {
        ...warehouseRules,
        ...readOrThrow((issues) => readWarehouseRules(rules, "warehouseRules", issues)),
      };
    },
    get requests(): RequestLogEntry[] {
      return log.snapshot();
    },
    clearRequests(): void {
      log.clear();
    },
    describeService(serviceId: string): ServiceDescription | undefined {
      const stored = store.get(serviceId);
      if (stored === undefined) return undefined;
      return {
        organizationId: stored.organizationId,
        reversePrivateEndpointIds: [...stored.endpointIds],
        service: store.view(stored, store.trueState(stored)),
      };
    },
    currentTransitions: () => ({ ...transitions }),
    currentWarehouseRules: () => ({ ...warehouseRules }),
  };

  const apiContext = { keys: resolved, store, rateLimiter, faults, log, now, closing: closing.signal };
  const server = createEmulatorServer(emulator, apiContext);
  await listen(server, resolved.host, resolved.port);
  emulator.url = baseUrl(resolved.host, (server.address() as AddressInfo).port);
  let closed: Promise<void> | undefined;
  emulator.close = () => (closed ??= closeServer(server, closing));
  return emulator;
}
