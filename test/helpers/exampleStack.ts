import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { startEmulator, type Emulator, type EmulatorOptions, type RequestLogEntry } from "../../src/emulator";
import { captureProgram, type CapturedResource } from "../../src/engine-driver/capture";
import { EngineStack } from "../../src/engine-driver/stack";
import { startProviderHost, type ProviderHost } from "../../src/engine-driver/host";
import { providerConfig } from "./providerConfig";
import { ROOT } from "./repoFiles";

/*
 * The engine tests' stack: examples/basic (or a program of the test's own) captured under mocks,
 * driven through the real dynamic-provider host against the emulator. Each test seeds its own
 * service under a fresh id; the emulator and the host are shared by a file's tests (a host
 * applies Configure once per provider text), so requests are read by service id or over the
 * window of a test's own step.
 */

export const PROJECT = "dbcloud-example";
export const ORG = "5f0c3a52-8d1e-4b7a-9c63-0e2f7d4a1b90";
export const SECRET_KEYS = ["dbcloud:apiKeySecret"];

export interface Ids {
  serviceId: string;
  endpointId: string;
}

/** The provider's stack config for `emulator`, with a rate limit under the emulator's. */
export function baseConfig(emulator: Emulator): Record<string, string> {
  return providerConfig(emulator, { organizationId: ORG, rateLimit: "10/1s" });
}

/** examples/basic's config: the service "analytics" in `state`, and its endpoint. */
export function exampleConfig(
  emulator: Emulator,
  ids: Ids,
  state: "running" | "stopped",
): Record<string, string> {
  return {
    ...baseConfig(emulator),
    [`${PROJECT}:services`]: JSON.stringify([{ name: "analytics", serviceId: ids.serviceId, state }]),
    [`${PROJECT}:reversePrivateEndpoint`]: JSON.stringify({
      serviceId: ids.serviceId,
      endpointId: ids.endpointId,
    }),
  };
}

export function captureExample(config: Record<string, string>): Promise<CapturedResource[]> {
  return captureProgram(join(ROOT, "examples", "basic", "index.ts"), {
    project: PROJECT,
    stack: "test",
    config,
    secretKeys: SECRET_KEYS,
    freshUnder: join(ROOT, "examples", "basic"),
  });
}

/** A service named "analytics" under a fresh id, with one reverse private endpoint. */
export function seedAnalytics(emulator: Emulator, state: "running" | "stopped"): Ids {
  const ids = { serviceId: randomUUID(), endpointId: `rpe-${randomUUID().slice(0, 8)}` };
  emulator.addService({
    organizationId: ORG,
    id: ids.serviceId,
    name: "analytics",
    state,
    reversePrivateEndpointIds: [ids.endpointId],
  });
  return ids;
}

/** The sequence number of the last logged request: what came after it is the window of a step. */
export const lastSeq = (emulator: Emulator) => emulator.requests.reduce((max, r) => Math.max(max, r.seq), 0);
export const requestsSince = (emulator: Emulator, seq: number): RequestLogEntry[] =>
  emulator.requests.filter((r) => r.seq > seq);
export const requestsAbout = (emulator: Emulator, serviceId: string): RequestLogEntry[] =>
  emulator.requests.filter((r) => r.serviceId === serviceId);

export const byName = (stack: EngineStack, name: string) =>
  stack.state().find((entry) => entry.name === name);

/** The emulator and provider host a file's tests share: started before them, stopped after. */
export interface SharedHost {
  emulator: Emulator;
  host: ProviderHost;
}

/** Starts a SharedHost for the calling `describe`: the host on scaled time (0.02) and `project`. */
export function sharedHost(emulatorOptions: EmulatorOptions, project: string): SharedHost {
  const shared = {} as SharedHost;
  before(async () => {
    shared.emulator = await startEmulator(emulatorOptions);
    shared.host = await startProviderHost({ cwd: ROOT, project, env: { DBCLOUD_TIME_SCALE: "0.02" } });
  });
  after(async () => {
    await shared.host?.stop();
    await shared.emulator?.close();
  });
  return shared;
}

/** examples/basic's SharedHost: transitions of about a second, a short visibility lag, 10 requests a second. */
export function exampleStackHost(): SharedHost {
  return sharedHost(
    {
      transitions: { starting: 600, stopping: 1_000 },
      visibilityLagMs: 100,
      rateLimit: { requests: 10, windowMs: 1_000 },
    },
    PROJECT,
  );
}

/** A fresh stack on `host` with `config` (the key secret marked secret). */
export const newStack = (host: ProviderHost, config: Record<string, string>) =>
  new EngineStack(host, { config, secretKeys: SECRET_KEYS });
