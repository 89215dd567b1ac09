import { randomUUID } from "node:crypto";
import { startEmulator, type Emulator, type EmulatorOptions } from "../../src/emulator";
import { sendToEmulator } from "./emulatorHttp";

/*
 * An emulator for fault tests: one running service with endpoint rpe-1 whose stop lasts 5 s (so
 * a state read after a command still shows "stopping"), renewed for each test, and requests
 * whose answers are kept as text (a fault's answer need not be JSON).
 */

export interface RawReply {
  status: number;
  headers: Headers;
  text: string;
}

export interface FaultRig {
  organizationId: string;
  serviceId: string;
  servicePath: string;
  statePath: string;
  endpointPath: string;
  emulator: Emulator;
  /** Replaces the test's emulator (close the current one first) by one with `options` too. */
  start(options?: EmulatorOptions): Promise<Emulator>;
  call(method: string, path: string, body?: unknown): Promise<RawReply>;
  stop(): Promise<RawReply>;
  get(): Promise<RawReply>;
}

/** A FaultRig for the calling `describe`: started before each test, closed after it. */
export function faultEmulatorEachTest(): FaultRig {
  const organizationId = randomUUID();
  const serviceId = randomUUID();
  const servicePath = `/v1/organizations/${organizationId}/services/${serviceId}`;
  const rig: FaultRig = {
    organizationId,
    serviceId,
    servicePath,
    statePath: `${servicePath}/state`,
    endpointPath: `${servicePath}/pipesReversePrivateEndpoints/rpe-1`,
    emulator: undefined as unknown as Emulator,
    async start(options = {}) {
      rig.emulator = await startEmulator({
        transitions: { stopping: 5_000 },
        services: [{ organizationId, id: serviceId, reversePrivateEndpointIds: ["rpe-1"] }],
        ...options,
      });
      return rig.emulator;
    },
    async call(method, path, body) {
      const response = await sendToEmulator(rig.emulator, method, path, body);
      return { status: response.status, headers: response.headers, text: await response.text() };
    },
    stop: () => rig.call("PATCH", rig.statePath, { command: "stop" }),
    get: () => rig.call("GET", servicePath),
  };
  beforeEach(async () => {
    await rig.start();
  });
  afterEach(() => rig.emulator.close());
  return rig;
}
