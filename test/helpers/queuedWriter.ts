/**
 * A process that dies with requests waiting in a budget file. Run as a child process: takes one
 * slot of the rate budget shared through the file at argv[2] (limit in argv[3], JSON), queues
 * argv[4] more requests behind it, prints `QUEUED`, and waits to be killed.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { systemClock } from "../../src/api/clock";
import { FileLedger } from "../../src/api/fileLedger";
import { RateBudget } from "../../src/api/rateBudget";
import type { RateLimit } from "../../src/api/rateLimit";

/**
 * Starts such a process on the file at `path`, kills it with SIGKILL once its requests are queued,
 * and resolves once it is reaped (its pid gone); `seen(text)` is shown the file as it left it.
 */
export async function killWithQueue(
  path: string,
  limit: RateLimit,
  queued: number,
  seen: (text: string) => void = () => undefined,
): Promise<void> {
  const child = spawn(
    process.execPath,
    ["-r", "ts-node/register/transpile-only", __filename, path, JSON.stringify(limit), String(queued)],
    { cwd: join(__dirname, "../.."), stdio: ["ignore", "pipe", "inherit"] },
  );
  const exited = once(child, "exit");
  try {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
    while (!out.includes("QUEUED")) await once(child.stdout, "data");
    seen(readFileSync(path, "utf8"));
  } finally {
    child.kill("SIGKILL");
    await exited;
  }
}

async function main(): Promise<void> {
  const [path, limitText, queuedText] = process.argv.slice(2);
  const limit = JSON.parse(limitText) as RateLimit;
  // As the client's shared budget maps its clock to the file's.
  const file = new FileLedger(path, { limit, now: systemClock.now, wallNow: Date.now });
  const budget = new RateBudget(limit, systemClock, 0, file);
  await budget.take();
  // Each reserves its slot in the file as it is called.
  for (let i = 0; i < Number(queuedText); i++) void budget.take();
  process.stdout.write("QUEUED\n");
  setInterval(() => undefined, 60_000); // alive until killed
}

if (require.main === module) void main();
