import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";
import { basicAuth } from "./emulatorHttp";

/*
 * The dbcloud-emulator command run as a real process (from source, through ts-node): started,
 * its output collected, its banner awaited and its ready-to-paste lines read.
 */

const CLI = resolve(__dirname, "../../src/emulator/cli/main.ts");
const READY_LINE = /Press Ctrl-C to stop\./;

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function spawnCli(args: string[]): ChildProcess {
  return spawn(process.execPath, ["-r", "ts-node/register/transpile-only", CLI, ...args], {
    cwd: resolve(__dirname, "../.."),
    stdio: ["ignore", "pipe", "pipe"],
  });
}

export function collect(child: ChildProcess): {
  stdout: () => string;
  stderr: () => string;
  exited: Promise<Finished>;
} {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<Finished>((resolveExit) =>
    child.once("exit", (code) => resolveExit({ code, stdout, stderr })),
  );
  return { stdout: () => stdout, stderr: () => stderr, exited };
}

/** Starts the CLI and waits for its banner; a process that exits first fails the test with its output. */
export async function startCli(args: string[]) {
  const child = spawnCli(args);
  const output = collect(child);
  await new Promise<void>((resolveReady, rejectReady) => {
    const timer = setTimeout(
      () => rejectReady(new Error(`no banner after 15 s:\n${output.stdout()}`)),
      15_000,
    );
    child.stdout?.on("data", () => {
      if (READY_LINE.test(output.stdout())) {
        clearTimeout(timer);
        resolveReady();
      }
    });
    void output.exited.then((finished) => {
      clearTimeout(timer);
      rejectReady(
        new Error(`exited with ${finished.code} before ready:\n${finished.stdout}\n${finished.stderr}`),
      );
    });
  });
  return { child, output };
}

/** Reads the `export DBCLOUD_...=...` line the banner prints. */
export function exportedEnvironment(stdout: string): Record<string, string> {
  const line = stdout.split("\n").find((text) => text.trim().startsWith("export DBCLOUD_API_URL="));
  assert.ok(line, `no export line in:\n${stdout}`);
  return Object.fromEntries(
    line
      .trim()
      .replace(/^export /, "")
      .split(" ")
      .map((assignment) => assignment.split("=", 2) as [string, string]),
  );
}

/** The Authorization header for the key the banner exported. */
export function exportedAuthorization(environment: Record<string, string>): string {
  return basicAuth(environment.DBCLOUD_API_KEY_ID, environment.DBCLOUD_API_KEY_SECRET);
}
