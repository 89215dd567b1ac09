/**
 * P4 (plugin): the provider plugin as users of other languages get it. The single executable
 * (`npm run build:plugin-binary`): its build time and size; and the cold start of the plugin to
 * the port it prints (what the engine waits for before its first call), the executable against
 * the npm bin (`node dist/plugin/main.js`), started alternately so both see the same machine.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spread, type Spread } from "./stats";

const ROOT = join(__dirname, "..");
/** A start that prints no port within this long is a failure, not a figure. */
const START_LIMIT_MS = 30_000;

export interface P4PluginResult {
  binaryMb: number;
  buildSeconds: number;
  coldStartMs: { binary: Spread; npmBin: Spread };
}

/** Milliseconds from spawn to the first line of stdout (the port), then the process is ended. */
function timeToPort(command: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "ignore"] });
    const limit = setTimeout(() => child.kill("SIGKILL"), START_LIMIT_MS);
    child.stdout.once("data", () => {
      resolve(Number(process.hrtime.bigint() - started) / 1e6);
      clearTimeout(limit);
      child.kill("SIGTERM");
    });
    child.on("exit", (code, signal) => {
      clearTimeout(limit);
      reject(new Error(`${command} ended before printing its port (${code ?? signal})`));
    });
  });
}

/** Needs `npm run build` first (the bench script runs it). */
export async function runP4Plugin(coldStarts = 9): Promise<P4PluginResult> {
  const out = mkdtempSync(join(tmpdir(), "dbcloud-bench-plugin-"));
  try {
    const built = process.hrtime.bigint();
    execFileSync(process.execPath, [join(ROOT, "tools", "plugin-binary", "build.js"), out], {
      stdio: "ignore",
    });
    const buildSeconds = Number(process.hrtime.bigint() - built) / 1e9;
    const binary = join(out, "pulumi-resource-dbcloud");
    const npmBin = join(ROOT, "dist", "plugin", "main.js");
    const times = { binary: [] as number[], npmBin: [] as number[] };
    for (let i = 0; i < coldStarts; i++) {
      times.binary.push(await timeToPort(binary, []));
      times.npmBin.push(await timeToPort(process.execPath, [npmBin]));
    }
    return {
      binaryMb: statSync(binary).size / 1024 / 1024,
      buildSeconds,
      coldStartMs: { binary: spread(times.binary), npmBin: spread(times.npmBin) },
    };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

if (require.main === module) {
  runP4Plugin()
    .then((r) => console.log(JSON.stringify(r)))
    .catch((error) => {
      console.error(error);
      process.exitCode = 1;
    });
}
