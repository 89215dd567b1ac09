/**
 * P3: services started together against a server limited to 10 requests per 10 s per key, each
 * process a real child process (bench/fleet-worker.ts) converging through the provider, all on
 * one key. Compared with the floor: every service needs at least a read, a command and one poll
 * (3 requests at the limit), and its transition after its command, which cannot go out before 2
 * requests per service have: floor = max(3N, 2N + T) seconds at 1 request per second.
 * The burst rows refresh each service once instead: R reads need ceil(R / 10) - 1 whole windows.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator } from "../src/emulator";
import { redisInstalled, startRedis } from "../test/helpers/redisServer";

/** Where the processes run: one machine (they may share files) or each on a "machine" of its own. */
export type FleetMachines = "one" | "separate";

/** One fleet: its shape, what the workers do, and its targets. */
export interface FleetRow {
  name: string;
  processes: number;
  servicesPerProcess: number;
  machines: FleetMachines;
  /** The transition each service takes, in real-service seconds. */
  transitionSeconds: number;
  /** Each process starts this many real-service seconds after the one before. */
  staggerSeconds?: number;
  /** Refresh every service once instead of converging it. */
  reads?: boolean;
  /** Keep the key's budget in a Redis all processes share (a redis-server started for the row). */
  store?: boolean;
  /**
   * Run unscaled: a row of one window's reset takes 10 s anyway, and scaled down, each request's
   * own latency and the start of the processes' clients (tens of ms) would weigh as many times
   * more against the window as the time is scaled.
   */
  realTime?: boolean;
  maxRatio: number;
  max429Share: number;
}

export interface FleetResult {
  processes: number;
  machines: FleetMachines;
  servicesPerProcess: number;
  scale: number;
  transitionSeconds: number;
  staggerMs: number;
  seconds: number;
  floorSeconds: number;
  ratio: number;
  requests: number;
  rateLimited: number;
  failures: number;
  errors: string[];
}

interface Outcome {
  ok: boolean;
  doneAt: number;
  error?: string;
}

/**
 * One worker process. `folder` stands in for the machine: its temp and runtime folders, so
 * processes given different folders share nothing but the key.
 */
function worker(env: Record<string, unknown>, scale: number, folder: string) {
  const child = spawn(
    process.execPath,
    ["-r", "ts-node/register/transpile-only", join(__dirname, "fleet-worker.ts")],
    {
      cwd: join(__dirname, ".."),
      env: {
        ...process.env,
        TMPDIR: folder,
        XDG_RUNTIME_DIR: folder,
        DBCLOUD_TIME_SCALE: String(scale),
        BENCH_FLEET_WORKER: JSON.stringify(env),
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")));
  return new Promise<Outcome[]>((resolve, reject) =>
    child.once("exit", (code) => {
      const line = out.split("\n").find((l) => l.startsWith("RESULT "));
      if (code !== 0 || !line) reject(new Error(`fleet worker exited ${code}: ${err.slice(-2000)}`));
      else resolve(JSON.parse(line.slice("RESULT ".length)) as Outcome[]);
    }),
  );
}

/**
 * The wall-clock ms between process starts: `BENCH_STAGGER_MS` when set (every row), else the
 * row's own stagger, scaled.
 */
function staggerMsOf(row: Pick<FleetRow, "staggerSeconds">, scale: number): number {
  const fromEnv = process.env.BENCH_STAGGER_MS;
  return fromEnv ? Number(fromEnv) : (row.staggerSeconds ?? 0) * 1000 * scale;
}

/** What the limit allows, in real-service seconds (see the header). */
export function floorSeconds(
  row: Pick<FleetRow, "processes" | "servicesPerProcess" | "transitionSeconds" | "reads">,
) {
  const n = row.processes * row.servicesPerProcess;
  return row.reads ? (Math.ceil(n / 10) - 1) * 10 : Math.max(3 * n, 2 * n + row.transitionSeconds);
}

export async function runFleet(
  options: Omit<FleetRow, "name" | "maxRatio" | "max429Share" | "machines"> & {
    scale: number;
    machines?: FleetMachines;
  },
): Promise<FleetResult> {
  const { processes, servicesPerProcess, transitionSeconds, machines = "one" } = options;
  const scale = options.realTime ? 1 : options.scale;
  const staggerMs = staggerMsOf(options, scale);
  const machineFolders = Array.from({ length: machines === "one" ? 1 : processes }, () =>
    mkdtempSync(join(tmpdir(), "dbcloud-fleet-machine-")),
  );
  const windowMs = 10_000 * scale;
  const organizationId = randomUUID();
  const ids = Array.from({ length: processes * servicesPerProcess }, () => randomUUID());
  const redis = options.store ? await startRedis() : undefined;
  const emulator = await startEmulator({
    rateLimit: { requests: 10, windowMs },
    transitions: { starting: transitionSeconds * 1000 * scale, stopping: transitionSeconds * 1000 * scale },
    services: ids.map((id, i) => ({ organizationId, id, name: `fleet-${i}`, state: "stopped" })),
  });
  try {
    // Children take a few seconds to load; they all start at this time.
    const startAt = Date.now() + 6_000 + 1_500 * processes;
    const outcomes = (
      await Promise.all(
        Array.from({ length: processes }, (_, p) =>
          worker(
            {
              url: emulator.url,
              keyId: emulator.keyId,
              keySecret: emulator.keySecret,
              organizationId,
              rateLimit: `10/${windowMs}ms`,
              serviceIds: ids.slice(p * servicesPerProcess, (p + 1) * servicesPerProcess),
              startAt: startAt + p * staggerMs,
              reads: options.reads ?? false,
              store: redis?.url,
            },
            scale,
            machineFolders[p % machineFolders.length],
          ),
        ),
      )
    ).flat();
    const seconds = (Math.max(...outcomes.map((o) => o.doneAt)) - startAt) / scale / 1000;
    const floor = floorSeconds(options);
    const failed = outcomes.filter((o) => !o.ok);
    if (process.env.BENCH_DEBUG) {
      // Each request as the process (by its services), * for a command, ! for a 429; a line a window.
      const owner = new Map<string, number>(ids.map((id, i) => [id, Math.floor(i / servicesPerProcess)]));
      const lines = new Map<number, string[]>();
      for (const r of emulator.requests) {
        const window = Math.floor((r.at - startAt) / windowMs);
        const mark = `${owner.get(r.serviceId ?? "") ?? "?"}${r.method === "PATCH" ? "*" : ""}${r.status === 429 ? "!" : ""}`;
        lines.set(window, [...(lines.get(window) ?? []), mark]);
      }
      for (const [window, marks] of lines) console.error(`window ${window}: ${marks.join(" ")}`);
    }
    return {
      processes,
      machines,
      servicesPerProcess,
      scale,
      transitionSeconds,
      staggerMs,
      seconds,
      floorSeconds: floor,
      ratio: seconds / floor,
      requests: emulator.requests.length,
      rateLimited: emulator.requests.filter((r) => r.status === 429).length,
      failures: failed.length,
      errors: failed.map((o) => o.error ?? "").slice(0, 3),
    };
  } finally {
    await emulator.close();
    await redis?.stop();
    for (const folder of machineFolders) rmSync(folder, { recursive: true, force: true });
  }
}

const row = (name: string, shape: Omit<FleetRow, "name">): FleetRow => ({ name, ...shape });
const one = { machines: "one", maxRatio: 1.1, max429Share: 0 } as const;
const separate = { machines: "separate", maxRatio: 1.3, max429Share: 0.1 } as const;
const x50 = { processes: 1, servicesPerProcess: 50, ...one };
const x4 = { processes: 4, servicesPerProcess: 10 };
const stored = { machines: "separate", store: true, maxRatio: 1.05, max429Share: 0 } as const;
const reads = {
  processes: 2,
  servicesPerProcess: 8,
  machines: "separate",
  transitionSeconds: 0,
  reads: true,
  realTime: true,
} as const;

/** The fleet rows and their targets, at the transition times real services take. */
export const FLEET_ROWS: readonly FleetRow[] = [
  row("1 process x 50, 30 s", { ...x50, transitionSeconds: 30 }),
  row("1 process x 50, 60 s", { ...x50, transitionSeconds: 60 }),
  row("1 process x 50, 300 s", { ...x50, transitionSeconds: 300 }),
  row("4 processes x 10, one machine, 30 s", { ...x4, ...one, transitionSeconds: 30 }),
  row("4 processes x 10, one machine, 60 s", { ...x4, ...one, transitionSeconds: 60 }),
  row("4 processes x 10, 4 machines, 60 s", { ...x4, ...separate, transitionSeconds: 60 }),
  row("the same, starts 1.5 s apart", { ...x4, ...separate, transitionSeconds: 60, staggerSeconds: 1.5 }),
  row("4 processes x 10, 4 machines, Redis store, 60 s", { ...x4, ...stored, transitionSeconds: 60 }),
  row("the same, starts 1.5 s apart", { ...x4, ...stored, transitionSeconds: 60, staggerSeconds: 1.5 }),
  row("2 x 8 reads, 2 machines (real time)", { ...reads, maxRatio: 1.5, max429Share: 1 }),
  row("2 x 8 reads, 2 machines, Redis store (real time)", {
    ...reads,
    store: true,
    maxRatio: 1.1,
    max429Share: 1,
  }),
];

/** Whether a row can run here: the store rows need redis-server. */
export function fleetRowRuns(row: FleetRow): boolean {
  return !row.store || redisInstalled();
}

export function fleetSummary(r: FleetResult): string {
  const share = r.requests ? (100 * r.rateLimited) / r.requests : 0;
  return (
    `${r.seconds.toFixed(0)} s vs floor ${r.floorSeconds} s = ${r.ratio.toFixed(2)} x; ` +
    `${r.requests} requests, ${r.rateLimited} x 429 (${share.toFixed(0)} %), ${r.failures} failed`
  );
}

export function fleetTarget(row: FleetRow): string {
  const share =
    row.max429Share >= 1 ? "" : `, ${row.max429Share ? `<= ${100 * row.max429Share} %` : "0 x"} 429`;
  return `<= ${row.maxRatio} x${share}, 0 failed`;
}

export function fleetMet(row: FleetRow, r: FleetResult): boolean {
  return r.ratio <= row.maxRatio && r.rateLimited <= row.max429Share * r.requests && r.failures === 0;
}

/** `ts-node bench/fleet.ts [repeats] [scale] [row names...]`: each row `repeats` times, one line per run. */
async function main(): Promise<void> {
  const repeats = Number(process.argv[2] ?? 1);
  const scale = Number(process.argv[3] ?? 0.1);
  const only = process.argv.slice(4);
  for (const row of FLEET_ROWS) {
    if (only.length && !only.some((name) => row.name.includes(name))) continue;
    if (!fleetRowRuns(row)) {
      console.log(`${row.name.padEnd(38)} skipped: redis-server is not installed`);
      continue;
    }
    for (let i = 0; i < repeats; i++) {
      const r = await runFleet({ ...row, scale });
      console.log(`${row.name.padEnd(38)} ${fleetSummary(r)}  ${fleetMet(row, r) ? "met" : "MISSED"}`);
      if (r.errors.length) console.log(`  errors: ${r.errors.join(" | ")}`);
    }
  }
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
