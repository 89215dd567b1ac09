// startEmulator: wires the store, rate limit, faults and log to a node:http server, and exposes
// the same controls programmatically and under /_emulator/.
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
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
import { resolveOptions, type ResolvedOptions } from "./options";
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
  const emulator = new RunningEmulator(resolveOptions(options));
  await emulator.listen();
  return emulator;
}

/** One emulator: its store, rate limit, faults and log, controlled here and under /_emulator/. */
class RunningEmulator implements ControlTarget {
  url = "";
  readonly keyId: string;
  readonly keySecret: string;
  private transitions: TransitionTimes;
  private visibilityLagMs: number;
  private warehouseRules: WarehouseRules;
  private readonly store: ServiceStore;
  private readonly rateLimiter: FixedWindowRateLimiter;
  private readonly faults: FaultRegistry;
  private readonly log = new RequestLog();
  private readonly closing = new AbortController();
  private server: Server | undefined;
  private closed: Promise<void> | undefined;

  constructor(private readonly resolved: ResolvedOptions) {
    this.keyId = resolved.keyId;
    this.keySecret = resolved.keySecret;
    this.transitions = resolved.transitions;
    this.visibilityLagMs = resolved.visibilityLagMs;
    this.warehouseRules = resolved.warehouseRules;
    this.store = new ServiceStore({
      now: resolved.now,
      transitions: () => this.transitions,
      visibilityLagMs: () => this.visibilityLagMs,
      warehouseRules: () => this.warehouseRules,
    });
    this.rateLimiter = new FixedWindowRateLimiter(resolved.rateLimit, resolved.now);
    this.faults = new FaultRegistry(resolved.random);
    for (const seed of resolved.services) this.store.add(seed);
  }

  async listen(): Promise<void> {
    const { host, port, now } = this.resolved;
    const { store, rateLimiter, faults, log } = this;
    const apiContext = {
      keys: this.resolved,
      store,
      rateLimiter,
      faults,
      log,
      now,
      closing: this.closing.signal,
    };
    const server = (this.server = createEmulatorServer(this, apiContext));
    await listen(server, host, port);
    this.url = baseUrl(host, (server.address() as AddressInfo).port);
  }

  close(): Promise<void> {
    return (this.closed ??= this.server ? closeServer(this.server, this.closing) : Promise.resolve());
  }

  addService(seed: SeedService): ServiceView {
    const stored = this.store.add(parseSeedService(seed));
    return this.store.view(stored, this.store.trueState(stored));
  }

  removeService(serviceId: string): void {
    this.requireService(serviceId);
    this.store.remove(serviceId);
  }

  service(serviceId: string): ServiceView | undefined {
    const stored = this.store.get(serviceId);
    return stored === undefined ? undefined : this.store.view(stored, this.store.trueState(stored));
  }

  setState(serviceId: string, state: string, then?: ScheduledState): void {
    const stored = this.requireService(serviceId);
    readOrThrow((issues) => readNonEmptyString(state, "state", issues));
    const next =
      then === undefined ? undefined : readOrThrow((issues) => readScheduledState(then, "then", issues));
    this.store.setState(stored, state, next);
  }

  addEndpoint(serviceId: string, endpointId: string): void {
    const stored = this.requireService(serviceId);
    stored.endpointIds.add(readOrThrow((issues) => readNonEmptyString(endpointId, "endpointId", issues)));
  }

  hasEndpoint(serviceId: string, endpointId: string): boolean {
    return this.store.get(serviceId)?.endpointIds.has(endpointId) ?? false;
  }

  removeEndpoint(serviceId: string, endpointId: string): void {
    this.requireService(serviceId).endpointIds.delete(endpointId);
  }

  injectFault(fault: Fault): void {
    this.faults.add(parseFault(fault));
  }

  clearFaults(): void {
    this.faults.clear();
  }

  setRateLimit(limit: RateLimit | false): void {
    this.rateLimiter.setLimit(readOrThrow((issues) => readRateLimit(limit, "rateLimit", issues)));
  }

  setVisibilityLag(ms: number): void {
    this.visibilityLagMs = readOrThrow((issues) => readMilliseconds(ms, "visibilityLagMs", issues));
  }

  setTransitions(partial: Partial<TransitionTimes>): void {
    // Transitions already under way keep the end time they were given.
    const changed = readOrThrow((issues) => readTransitions(partial, "transitions", issues));
    this.transitions = { ...this.transitions, ...changed };
  }

  setWarehouseRules(rules: Partial<WarehouseRules>): void {
    const changed = readOrThrow((issues) => readWarehouseRules(rules, "warehouseRules", issues));
    this.warehouseRules = { ...this.warehouseRules, ...changed };
  }

  get requests(): RequestLogEntry[] {
    return this.log.snapshot();
  }

  clearRequests(): void {
    this.log.clear();
  }

  describeService(serviceId: string): ServiceDescription | undefined {
    const stored = this.store.get(serviceId);
    if (stored === undefined) return undefined;
    return {
      organizationId: stored.organizationId,
      reversePrivateEndpointIds: [...stored.endpointIds],
      service: this.store.view(stored, this.store.trueState(stored)),
    };
  }

  currentTransitions(): TransitionTimes {
    return { ...this.transitions };
  }

  currentWarehouseRules(): WarehouseRules {
    return { ...this.warehouseRules };
  }

  private requireService(serviceId: string): StoredService {
    const stored = this.store.get(serviceId);
    if (stored === undefined) throw new EmulatorInputError([`service ${serviceId} does not exist`], 404);
    return stored;
  }
}
