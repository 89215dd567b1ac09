/**
 * P2: one converge at a time, this package's waiting against a constant 5 s poller that reads
 * before it acts, at 5, 60 and 300 s transitions drawn from 0.75 to 1.25 x nominal. A first
 * transition has no history at all (a fresh process); later ones run in sequences of six on one
 * service (start, stop, start, ...), the first of each not counted, with what the sequence learned, exactly as
 * the provider carries it (own samples from outputs, the rest from the process prior). The
 * converger is called directly with a prior of the sequence's own, so sequences run side by side
 * without sharing what they learn; the provider around it only adds per-call overhead (P1).
 * Both pollers see the same drawn lengths. Times are scaled; results are real-service seconds.
 */
import { randomUUID } from "node:crypto";
import { ApiClient } from "../src/api/client";
import { systemClock } from "../src/api/clock";
import { DEFAULT_RETRY_POLICY } from "../src/api/retry";
import { startEmulator, type Emulator } from "../src/emulator";
import { converge, DEFAULT_TUNING, scaleTuning } from "../src/provider/converge";
import { emptySamples, OWN_HISTORY_LENGTH, withSample } from "../src/provider/transitions";
import { sleep, spread, type Spread } from "./stats";

export interface P2Row {
  nominalSeconds: number;
  scale: number;
  phase: "first" | "later";
  ours: { requests: Spread; lateSeconds: Spread };
  constant: { requests: Spread; lateSeconds: Spread };
}

const TRANSITIONS = 6;

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

type Target = "running" | "stopped";

/** One transition measured on the emulator's log: requests sent and how late the caller knew. */
async function measured(
  emulator: Emulator,
  transitionMs: number,
  scale: number,
  act: () => Promise<void>,
): Promise<Run> {
  emulator.setTransitions({ starting: transitionMs * scale, stopping: transitionMs * scale });
  const before = emulator.requests.length;
  await act();
  const done = Date.now();
  const log = emulator.requests.slice(before);
  const patch = log.find((r) => r.method === "PATCH" && r.status === 200);
  if (!patch) throw new Error("no accepted PATCH in the log");
  return { requests: log.length, lateSeconds: (done - (patch.at + transitionMs * scale)) / scale / 1000 };
}

async function sequence(
  kind: "ours" | "constant",
  nominalMs: number,
  scale: number,
  seed: number,
  transitions: number,
): Promise<Run[]> {
  const organizationId = randomUUID();
  const serviceId = randomUUID();
  const emulator = await startEmulator({
    services: [{ organizationId, id: serviceId, name: "p2", state: "stopped" }],
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
  const random = mulberry32(seed);
  const tuning = scaleTuning(DEFAULT_TUNING, scale);
  const prior = emptySamples();
  let history = emptySamples();
  const runs: Run[] = [];
  try {
    for (let i = 0; i < transitions; i++) {
      const target: Target = i % 2 === 0 ? "running" : "stopped";
      const transitionMs = nominalMs * (0.75 + 0.5 * random());
      runs.push(
        await measured(emulator, transitionMs, scale, async () => {
          if (kind === "ours") {
            const result = await converge(
              {
                organizationId,
                serviceId,
                desired: target,
                timeoutMs: 1_200_000 * scale,
                waitForState: true,
                history,
              },
              {
                client,
                clock: systemClock,
                log: { info: () => undefined, warn: () => undefined },
                tuning,
                prior,
              },
            );
            if (result.transition)
              history = withSample(
                history,
                result.transition.direction,
                result.transition.ms,
                OWN_HISTORY_LENGTH,
              );
          } else {
            const read = await client.getService(organizationId, serviceId);
            if (read.service.state === target) return;
            await client.changeServiceState(
              organizationId,
              serviceId,
              target === "running" ? "start" : "stop",
            );
            for (;;) {
              await sleep(5_000 * scale);
              if ((await client.getService(organizationId, serviceId)).service.state === target) break;
            }
          }
        }),
      );
    }
    return runs;
  } finally {
    await emulator.close();
  }
}

/** Seeds shared by both pollers, so they see the same drawn lengths. */
const seedsOf = (nominalSeconds: number, repeats: number) =>
  Array.from({ length: repeats }, (_, i) => nominalSeconds * 1000 + i);

async function side(
  kind: "ours" | "constant",
  nominalSeconds: number,
  scale: number,
  transitions: number,
  repeats: number,
) {
  return Promise.all(
    seedsOf(nominalSeconds, repeats).map((seed) =>
      sequence(kind, nominalSeconds * 1000, scale, seed, transitions),
    ),
  );
}

function summary(runs: Run[]) {
  return {
    requests: spread(runs.map((r) => r.requests)),
    lateSeconds: spread(runs.map((r) => r.lateSeconds)),
  };
}

/**
 * First transitions run alone (one per sequence) at the larger scale: both pollers then behave
 * alike by design, and a finer scale would let event-loop lag on a loaded machine (which
 * stretches a sleep-after-answer poller more than a gridded one) decide the comparison. Later
 * transitions run as sequences of six at scales that keep the run short.
 */
export async function runP2(repeats: number): Promise<P2Row[]> {
  const rows: P2Row[] = [];
  for (const [nominalSeconds, firstScale, laterScale] of [
    [5, 0.2, 0.2],
    [60, 0.1, 0.05],
    [300, 0.1, 0.05],
  ] as const) {
    for (const phase of ["first", "later"] as const) {
      const scale = phase === "first" ? firstScale : laterScale;
      // The 300 s sequences are shorter (4 transitions), so they can run at 0.05 in time.
      const perSequence = nominalSeconds === 300 ? 4 : TRANSITIONS;
      const transitions = phase === "first" ? 1 : perSequence;
      // As many first transitions as later ones (5 x repeats): a median of 9 of a bimodal
      // lateness (found by the first poll or the next) flips on one run.
      const sequences = phase === "first" ? repeats * 5 : Math.ceil((repeats * 5) / (perSequence - 1));
      const [ours, constant] = await Promise.all([
        side("ours", nominalSeconds, scale, transitions, sequences),
        side("constant", nominalSeconds, scale, transitions, sequences),
      ]);
      const pick = (runs: Run[][]) => runs.flatMap((r) => (phase === "first" ? r : r.slice(1)));
      rows.push({
        nominalSeconds,
        scale,
        phase,
        ours: summary(pick(ours)),
        constant: summary(pick(constant)),
      });
    }
  }
  return rows;
}
