/**
 * P3 and P3b: services started together against a server limited to 10 requests per 10 s per key,
 * each process a real child process (bench/fleet-worker.ts) converging through the provider,
 * all on one key. Compared with the floor: every service needs at least a read, a command and
 * one poll (3 requests at the limit), and its transition after its command, which cannot go out
 * before 2 requests per service have: floor = max(3N, 2N + T) seconds at 1 request per second.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { startEmulator } from "../src/emulator";

export interface FleetResult {
  processes: number;
  servicesPerProcess: number;
  scale: number;
  transitionSeconds: number;
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

function worker(env: Record<string, unknown>, scale: number) {
  const child = spawn(
    process.execPath,
    ["-r", "ts-node/register/transpile-only", join(__dirname, "fleet-worker.ts")],
    {
      cwd: join(__dirname, ".."),
      env: { ...process.env, DBCLOUD_TIME_SCALE: String(scale), BENCH_FLEET_WORKER: JSON.stringify(env) },
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

export async function runFleet(options: {
  processes: number;
  servicesPerProcess: number;
  scale: number;
  transitionSeconds: number;
}): Promise<FleetResult> {
  const { processes, servicesPerProcess, scale, transitionSeconds } = options;
  const windowMs = 10_000 * scale;
  const organizationId = randomUUID();
  const ids = Array.from({ length: processes * servicesPerProcess }, () => randomUUID());
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
              startAt,
            },
            scale,
          ),
        ),
      )
    ).flat();
    const n = ids.length;
    const seconds = (Math.max(...outcomes.map((o) => o.doneAt)) - startAt) / scale / 1000;
    const floorSeconds = Math.max(3 * n, 2 * n + transitionSeconds);
    const failed = outcomes.filter((o) => !o.ok);
    if (process.env.BENCH_DEBUG) {
      const log = emulator.requests;
      log.forEach((r, i) => {
        if (r.status !== 429) return;
        const around = log
          .slice(Math.max(0, i - 12), i + 1)
          .map((x) => `${x.at - startAt} ${x.method} ${x.status}`);
        console.error(`429 at ${r.at - startAt}:\n  ${around.join("\n  ")}`);
      });
    }
    return {
      processes,
      servicesPerProcess,
      scale,
      transitionSeconds,
      seconds,
      floorSeconds,
      ratio: seconds / floorSeconds,
      requests: emulator.requests.length,
      rateLimited: emulator.requests.filter((r) => r.status === 429).length,
      failures: failed.length,
      errors: failed.map((o) => o.error ?? "").slice(0, 3),
    };
  } finally {
    await emulator.close();
  }
}

if (require.main === module) {
  const [processes, perProcess] = [Number(process.argv[2] ?? 1), Number(process.argv[3] ?? 50)];
  runFleet({
    processes,
    servicesPerProcess: perProcess,
    scale: Number(process.argv[4] ?? 0.1),
    transitionSeconds: 30,
  })
    .then((r) => console.log(JSON.stringify(r)))
    .catch((e) => {
      console.error(e);
      process.exit(1);
    });
}
