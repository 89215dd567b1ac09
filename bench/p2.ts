/**
 * P2: waiting for a transition, against the emulator with scaled durations. Two rows per length
 * (5, 60 and 300 s, each drawn from 0.75 to 1.25 x nominal):
 *   alone  one converge of a service in a fresh process (the constant poller, nothing known);
 *   mixed  one process converging a 5 s service, then a 60 s one, then a 300 s one, one client
 *          for all three: what a stack with a small and a large service does. Any waiting that
 *          learns from earlier transitions shows the difference here.
 * Both see the same drawn lengths. Requests per transition (the GET before, the PATCH, every
 * poll) and lateness (how long after the end the converge returned) in real-service seconds.
 */
import { randomUUID } from "node:crypto";
import { ApiClient } from "../src/api/client";
import { systemClock } from "../src/api/clock";
import { DEFAULT_RETRY_POLICY } from "../src/api/retry";
import { startEmulator, type Emulator } from "../src/emulator";
import { converge, DEFAULT_TUNING, scaleTuning } from "../src/provider/converge";
import { spread, type Spread } from "./stats";

export interface P2Row {
  nominalSeconds: number;
  alone: { requests: Spread; lateSeconds: Spread };
  mixed: { requests: Spread; lateSeconds: Spread };
}

const NOMINAL_SECONDS = [5, 60, 300] as const;

function mulberry32(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

interface Run {
  requests: number;
  lateSeconds: number;
}

/** A fresh emulator with one stopped service per length, and one client for them all (one process). */
async function host(scale: number) {
  const organizationId = randomUUID();
  const ids = NOMINAL_SECONDS.map(() => randomUUID());
  const emulator = await startEmulator({
    services: ids.map((id, i) => ({ organizationId, id, name: `p2-${i}`, state: "stopped" })),
  });
  const client = new ApiClient({
    apiUrl: emulator.url,
    keyId: emulator.keyId,
    keySecret: emulator.keySecret,
    rateLimit: { requests: 10, windowMs: 10_000 * scale },
    retry: {
      baseDelayMs: DEFAULT_RETRY_POLICY.baseDelayMs * scale,
      maxDelayMs: DEFAULT_RETRY_POLICY.maxDelayMs * scale,
    },
  });
  return { emulator, client, organizationId, ids };
}

/** Starts one service and waits; the requests it sent and how late it returned, from the emulator's log. */
async function startOne(
  emulator: Emulator,
  client: ApiClient,
  organizationId: string,
  serviceId: string,
  transitionMs: number,
  scale: number,
): Promise<Run> {
  emulator.setTransitions({ starting: transitionMs * scale, stopping: transitionMs * scale });
  const before = emulator.requests.length;
  await converge(
    { organizationId, serviceId, desired: "running", timeoutMs: 1_200_000 * scale, waitForState: true },
    {
      client,
      clock: systemClock,
      log: { info: () => undefined, warn: () => undefined },
      tuning: scaleTuning(DEFAULT_TUNING, scale),
    },
  );
  const done = Date.now();
  const log = emulator.requests.slice(before);
  const patch = log.find((r) => r.method === "PATCH" && r.status === 200);
  if (!patch) throw new Error("no accepted PATCH in the log");
  return { requests: log.length, lateSeconds: (done - (patch.at + transitionMs * scale)) / scale / 1000 };
}

/** The drawn length of each nominal one, for one seed: the same for both rows. */
const lengthsOf = (seed: number) => {
  const random = mulberry32(seed);
  return NOMINAL_SECONDS.map((seconds) => seconds * 1000 * (0.75 + 0.5 * random()));
};

/** One process converging the three services one after another. */
async function mixed(seed: number, scale: number): Promise<Run[]> {
  const { emulator, client, organizationId, ids } = await host(scale);
  try {
    const runs: Run[] = [];
    const lengths = lengthsOf(seed);
    for (let i = 0; i < ids.length; i++)
      runs.push(await startOne(emulator, client, organizationId, ids[i], lengths[i], scale));
    return runs;
  } finally {
    await emulator.close();
  }
}

/** Each length in a process of its own. */
async function alone(seed: number, scale: number): Promise<Run[]> {
  const lengths = lengthsOf(seed);
  return Promise.all(
    lengths.map(async (transitionMs, i) => {
      const { emulator, client, organizationId, ids } = await host(scale);
      try {
        return await startOne(emulator, client, organizationId, ids[i], transitionMs, scale);
      } finally {
        await emulator.close();
      }
    }),
  );
}

const summary = (runs: Run[]) => ({
  requests: spread(runs.map((r) => r.requests)),
  lateSeconds: spread(runs.map((r) => r.lateSeconds)),
});

/** `repeats` seeds, each run both ways side by side; a row per length. */
export async function runP2(repeats: number, scale = 0.1): Promise<P2Row[]> {
  const seeds = Array.from({ length: repeats }, (_, i) => 1_000 + i);
  const [aloneRuns, mixedRuns] = await Promise.all([
    Promise.all(seeds.map((seed) => alone(seed, scale))),
    Promise.all(seeds.map((seed) => mixed(seed, scale))),
  ]);
  return NOMINAL_SECONDS.map((nominalSeconds, i) => ({
    nominalSeconds,
    alone: summary(aloneRuns.map((runs) => runs[i])),
    mixed: summary(mixedRuns.map((runs) => runs[i])),
  }));
}
