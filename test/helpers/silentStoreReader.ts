/**
 * A process that reads one service with its rate budget kept in a store that never answers. Run as
 * a child process: argv[2] is the store's URL, argv[3] the API URL, argv[4..7] the key id, key
 * secret, organization and service. Prints `READ <state>` once the read is answered, then has
 * nothing left to do: it should exit by itself.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { ApiClient } from "../../src/api/client";
import { parseStoreAddress } from "../../src/api/storeAddress";

export interface ReaderExit {
  /** The exit code, or null when the process was still running at `patienceMs` and was killed. */
  code: number | null;
  out: string;
  err: string;
}

/** Runs such a process and waits up to `patienceMs` for it to exit by itself (killed after that). */
export async function readThroughSilentStore(args: string[], patienceMs: number): Promise<ReaderExit> {
  const child = spawn(process.execPath, ["-r", "ts-node/register/transpile-only", __filename, ...args], {
    cwd: join(__dirname, "../.."),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")));
  const exited = once(child, "exit") as Promise<[number | null]>;
  const patience = setTimeout(() => child.kill("SIGKILL"), patienceMs);
  const [code] = await exited;
  clearTimeout(patience);
  return { code: child.killed ? null : code, out, err };
}

async function main(): Promise<void> {
  const [storeUrl, apiUrl, keyId, keySecret, organizationId, serviceId] = process.argv.slice(2);
  const store = parseStoreAddress(storeUrl);
  if ("problems" in store) throw new Error(store.problems.join("; "));
  const client = new ApiClient({ apiUrl, keyId, keySecret, rateLimitStore: store });
  const { service } = await client.getService(organizationId, serviceId);
  process.stdout.write(`READ ${service.state}\n`);
}

if (require.main === module) void main();
