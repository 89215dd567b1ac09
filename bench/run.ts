/**
 * `npm run bench`: this project's waiting strategy against a constant 5 s poller (what the
 * widely used Terraform provider does), side by side on the emulator, in one run. Durations
 * are scaled (SCALE) so a 60 s start takes 3 s; results are reported in real-service seconds
 * and as ratios, never asserted: these machines are shared and noisy.
 */
import { randomUUID } from "node:crypto";
import { ApiClient } from "../src/api/client";
import { closeSharedDispatchers } from "../src/api/shared";
import type { Emulator } from "../src/emulator";
import { serviceRunStateCheck, serviceRunStateCreate } from "../src/provider";
import { startProviderFixture, type ProviderFixture } from "../test/helpers/providerFixture";

const SCALE = Number(process.env.BENCH_SCALE ?? 0.05);
// Typical transition lengths in real-service time; each repeat draws one in [0.5x, 1.5x] so
// neither poller gains from a transition that happens to end on its polling grid.
const START_MS = 60_000;
const STOP_MS = 30_000;
const REPEATS = Number(process.env.BENCH_REPEATS ?? 5);
const FLEET = Number(process.env.BENCH_FLEET ?? 20);

interface Run {
  requests: number;
  /** From the end of the transition to the caller knowing it, real-service ms. */
  lateMs: number;
}

const realMs = (ms: number) => ms / SCALE;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function withFixture<T>(
  clientRateLimit: string,
  rateLimitMs: number | false,
  transitionMs: number,
  body: (f: ProviderFixture) => Promise<T>,
) {
  const fixture = await startProviderFixture({
    timeScale: SCALE,
    clientRateLimit,
    rateLimit: rateLimitMs === false ? false : { requests: 10, windowMs: rateLimitMs },
    transitions: { starting: transitionMs * SCALE, stopping: transitionMs * SCALE },
  });
  try {
    return await body(fixture);
  } finally {
    await fixture.close();
  }
}

function seed(emulator: Emulator, organizationId: string, state: string): string {
  const id = randomUUID();
  emulator.addService({ organizationId, id, name: `svc-${id.slice(0, 4)}`, state });
  return id;
}

/** Transition end = the accepted PATCH's time + the transition's length. */
function measure(emulator: Emulator, serviceId: string, doneAt: number, transitionMs: number): Run {
  const log = emulator.requests.filter((r) => r.serviceId === serviceId);
  const patch = log.find((r) => r.method === "PATCH" && r.status === 200);
  if (!patch) throw new Error("no accepted PATCH in the log");
  return { requests: log.length, lateMs: realMs(doneAt - (patch.at + transitionMs * SCALE)) };
}

async function ours(target: "running" | "stopped", transitionMs: number): Promise<Run> {
  return withFixture("off", false, transitionMs, async ({ emulator, organizationId }) => {
    const serviceId = seed(emulator, organizationId, target === "running" ? "stopped" : "running");
    const { inputs } = await serviceRunStateCheck({}, { serviceId, state: target });
    await serviceRunStateCreate(inputs);
    return measure(emulator, serviceId, Date.now(), transitionMs);
  });
}

/** The constant poller: PATCH, then a GET every 5 s until the state is there. */
async function constantPoller(target: "running" | "stopped", transitionMs: number): Promise<Run> {
  return withFixture("off", false, transitionMs, async ({ emulator, organizationId }) => {
    const serviceId = seed(emulator, organizationId, target === "running" ? "stopped" : "running");
    const client = new ApiClient({
      apiUrl: emulator.url,
      keyId: emulator.keyId,
      keySecret: emulator.keySecret,
      rateLimit: false,
    });
    await client.changeServiceState(organizationId, serviceId, target === "running" ? "start" : "stop");
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 5_000 * SCALE));
      if ((await client.getService(organizationId, serviceId)).service.state === target) break;
    }
    return measure(emulator, serviceId, Date.now(), transitionMs);
  });
}

/** FLEET services started at once, the server limiting 10 per window: budget on vs off. */
async function fleet(budget: "on" | "off") {
  const windowMs = 10_000 * SCALE;
  return withFixture(
    budget === "on" ? `10/${windowMs}ms` : "off",
    windowMs,
    START_MS,
    async ({ emulator, organizationId }) => {
      const ids = Array.from({ length: FLEET }, () => seed(emulator, organizationId, "stopped"));
      const started = Date.now();
      await Promise.all(
        ids.map(async (serviceId) => {
          const { inputs } = await serviceRunStateCheck({}, { serviceId, state: "running" });
          await serviceRunStateCreate(inputs);
        }),
      );
      const limited = emulator.requests.filter((r) => r.status === 429).length;
      return { seconds: realMs(Date.now() - started) / 1000, requests: emulator.requests.length, limited };
    },
  );
}

async function main() {
  const silence = console.log;
  const rows: string[] = [];
  const print = (line: string) => rows.push(line);
  console.log = () => undefined; // the provider's progress lines would drown the table
  try {
    for (const target of ["running", "stopped"] as const) {
      const a: Run[] = [];
      const b: Run[] = [];
      const typical = target === "running" ? START_MS : STOP_MS;
      for (let i = 0; i < REPEATS; i++) {
        const transitionMs = typical * (0.5 + (i + 0.5) / REPEATS);
        a.push(await ours(target, transitionMs));
        b.push(await constantPoller(target, transitionMs));
      }
      const [ra, rb] = [median(a.map((r) => r.requests)), median(b.map((r) => r.requests))];
      const [la, lb] = [median(a.map((r) => r.lateMs)), median(b.map((r) => r.lateMs))];
      print(
        `${target === "running" ? "start" : "stop "} (${typical / 2000}-${(typical * 1.5) / 1000} s transitions): ` +
          `requests ours ${ra} vs constant-5s ${rb} (ratio ${(ra / rb).toFixed(2)}); ` +
          `late ours ${(la / 1000).toFixed(1)} s vs ${(lb / 1000).toFixed(1)} s (ratio ${(la / Math.max(lb, 1)).toFixed(2)})`,
      );
    }
    const on = await fleet("on");
    const off = await fleet("off");
    print(
      `fleet of ${FLEET} starts, server limit 10/10s: budget on: ${on.limited} x 429 in ${on.requests} requests, ` +
        `${on.seconds.toFixed(0)} s; budget off: ${off.limited} x 429 in ${off.requests} requests, ${off.seconds.toFixed(0)} s`,
    );
  } finally {
    console.log = silence;
    await closeSharedDispatchers();
  }
  console.log(`benchmark (scale ${SCALE}, median of ${REPEATS}; times in real-service seconds)`);
  for (const row of rows) console.log(`  ${row}`);
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
