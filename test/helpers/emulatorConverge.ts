import { randomUUID } from "node:crypto";
import { ApiClient } from "../../src/api/client";
import {
  converge,
  DEFAULT_TUNING,
  type ConvergeRequest,
  type ConvergeTuning,
} from "../../src/provider/converge";
import { startEmulator, type EmulatorOptions } from "../../src/emulator";
import { virtualClock } from "./virtualClock";

/*
 * The converger against the emulator over real HTTP, through a real ApiClient, all three on one
 * virtual clock: nothing waits for real but a request the emulator holds open. The clock starts
 * far from zero, so an elapsed time never reads the same as a clock reading.
 */

export const START_MS = 1_000_000;

export interface ConvergeRun {
  timeoutMs?: number;
  desired?: ConvergeRequest["desired"];
  waitForState?: boolean;
  lastCommand?: ConvergeRequest["lastCommand"];
  signal?: AbortSignal;
  tuning?: Partial<ConvergeTuning>;
  /** The client's attempts per call (retries included); default 8. */
  maxAttempts?: number;
  /** The client's bound on one attempt, in real ms; default the client's. */
  attemptMs?: number;
  /** Sees each progress line as it is logged (warnings too). */
  onLine?: (line: string) => void;
}

export async function startConvergeBench(options: Omit<EmulatorOptions, "now"> = {}) {
  const time = virtualClock();
  time.advance(START_MS);
  const emulator = await startEmulator({ ...options, now: time.now });
  const organizationId = randomUUID();
  const statuses = (method: string) =>
    emulator.requests.filter((r) => r.method === method).map((r) => r.status);

  /** A converge of `serviceId` (to running and waiting for it, within ten minutes, unless told). */
  function run(serviceId: string, how: ConvergeRun = {}) {
    const { clock } = time;
    const client = new ApiClient({
      apiUrl: emulator.url,
      keyId: emulator.keyId,
      keySecret: emulator.keySecret,
      rateLimit: false,
      clock,
      random: () => 0,
      retry: { maxAttempts: how.maxAttempts ?? 8 },
      ...(how.attemptMs !== undefined && { timeouts: { totalMs: how.attemptMs } }),
    });
    const lines: string[] = [];
    const onLine = (line: string) => (lines.push(line), how.onLine?.(line));
    const request: ConvergeRequest = {
      organizationId,
      serviceId,
      desired: how.desired ?? "running",
      timeoutMs: how.timeoutMs ?? 600_000,
      waitForState: how.waitForState ?? true,
      lastCommand: how.lastCommand,
    };
    const tuning = { ...DEFAULT_TUNING, ...how.tuning };
    const converging = converge(request, {
      client,
      clock,
      log: { info: onLine, warn: onLine },
      tuning,
      signal: how.signal,
    });
    return { converging, lines };
  }

  /** Resolves once the emulator holds a request of `method` open (it polls the request log). */
  async function held(method: string) {
    while (!emulator.requests.some((r) => r.method === method && r.status === "stalled"))
      await new Promise((resolve) => setTimeout(resolve, 5));
  }

  return { emulator, organizationId, time, statuses, run, held };
}
