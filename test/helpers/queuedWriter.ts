/**
 * Run as a child process: takes one slot of the rate budget shared through the file at argv[2]
 * (limit in argv[3], JSON), queues argv[4] more requests behind it, prints `QUEUED`, and waits to
 * be killed: a process that dies with requests waiting in the file.
 */
import { FileLedger } from "../../src/api/fileLedger";
import { RateBudget } from "../../src/api/rateBudget";
import type { RateLimit } from "../../src/api/rateLimit";
import { systemClock } from "../../src/api/clock";

async function main(): Promise<void> {
  const [path, limitText, queuedText] = process.argv.slice(2);
  const limit = JSON.parse(limitText) as RateLimit;
  // As the client's shared budget maps its clock to the file's.
  const offsetMs = Date.now() - systemClock.now();
  const file = new FileLedger(path, { limit, offsetMs, now: systemClock.now, wallNow: Date.now });
  const budget = new RateBudget(limit, systemClock, 0, file);
  await budget.acquire();
  // Each reserves its slot in the file as it is called.
  for (let i = 0; i < Number(queuedText); i++) void budget.acquire();
  process.stdout.write("QUEUED\n");
  setInterval(() => undefined, 60_000); // alive until killed
}

if (require.main === module) void main();
