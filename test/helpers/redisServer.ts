import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";

/*
 * A real redis-server (Debian's package) on a free loopback port, started and stopped by the test
 * itself, with nothing saved to disk. Tests that need one skip, saying so on one line, when
 * redis-server is not installed.
 */

/** Whether `redis-server` runs here. */
export function redisInstalled(): boolean {
  return spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;
}

export const REDIS_SKIP_LINE = "redis-server is not installed: skipping the shared budget store tests";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface RedisServer {
  port: number;
  /** `redis://[:password@]127.0.0.1:port`. */
  url: string;
  stop(): Promise<void>;
}

/** Starts redis-server and waits until it accepts connections (a readiness line, bounded). */
export async function startRedis(options: { password?: string } = {}): Promise<RedisServer> {
  const port = await freePort();
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
  if (options.password) args.push("--requirepass", options.password);
  const child: ChildProcess = spawn("redis-server", args, { stdio: ["ignore", "pipe", "pipe"] });
  await new Promise<void>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(
      () => reject(new Error(`redis-server did not start: ${out.slice(-500)}`)),
      10_000,
    );
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      if (out.includes("Ready to accept connections")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => reject(new Error(`redis-server exited ${code}: ${out.slice(-500)}`)));
  });
  const auth = options.password ? `:${encodeURIComponent(options.password)}@` : "";
  return {
    port,
    url: `redis://${auth}127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}
