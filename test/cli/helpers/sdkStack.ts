import { execFileSync, spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { cachedToolchainBin, ROOT } from "./toolchain";

export { ROOT };

/*
 * A program on a committed SDK (sdk/python, sdk/go), run under the real `pulumi` CLI with the
 * plugin's single executable and no Node.js on the CLI's PATH. The language hosts are not built
 * here, so each language's own SDK serves the program inline (pythonProgram.ts, goProgram.ts);
 * the engine, the plugin protocol and the backend are the CLI's.
 */

const PASSPHRASE = "sdk-suite-passphrase";
/** The commands that run the program: a language's runner takes them. */
const PROGRAM_COMMANDS = new Set(["preview", "up", "refresh", "destroy"]);

/** Why a test cannot run here, in one line. */
export interface Missing {
  missing: string;
}

/** What a script prints last when its cache folder is complete (it exits 3 when not). */
export function cachedFolder(script: string): string | undefined {
  if (!existsSync(script)) return undefined;
  try {
    return execFileSync("bash", [script, "--check"], { encoding: "utf8" }).trim().split("\n").pop();
  } catch {
    return undefined;
  }
}

/** The folder holding the built `pulumi` (and nothing that is Node.js). */
export function cliBin(): string | Missing {
  return cachedToolchainBin() ?? { missing: "the Pulumi CLI is not built: `npm run test:cli` builds it" };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a process to its end, collecting its output. */
export function runProcess(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** How the engine gets the plugin's executable. */
export type PluginInstall = "Pulumi.yaml" | "plugin install";

/** How a program-running command (its arguments, `pulumi` left out) reaches the program. */
export type ProgramRunner = (args: string[]) => Promise<CliResult>;

export class SdkStack {
  readonly root = mkdtempSync(join(tmpdir(), "dbcloud-sdk-"));
  readonly projectDir = join(this.root, "project");
  readonly pluginDir = join(this.root, "plugin");
  readonly env: NodeJS.ProcessEnv;
  /** Set by the language's helper. */
  runProgram: ProgramRunner | undefined;
  private readonly cleanups: (() => void)[] = [];

  /** A copy of examples/<example>, with its own backend and Pulumi home. */
  constructor(
    readonly cliBin: string,
    example: string,
    env: Record<string, string>,
  ) {
    cpSync(join(ROOT, "examples", example), this.projectDir, { recursive: true });
    for (const dir of ["backend", "home"]) mkdirSync(join(this.root, dir));
    // Only the CLI's folder: no node, no plugin on PATH.
    this.env = {
      PATH: cliBin,
      HOME: join(this.root, "home"),
      PULUMI_BACKEND_URL: `file://${join(this.root, "backend")}`,
      PULUMI_HOME: join(this.root, "home"),
      PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PULUMI_IGNORE_AMBIENT_PLUGINS: "true",
      PULUMI_DIY_BACKEND_NO_LEGACY_WARNING: "true",
      NO_COLOR: "1",
      ...env,
    };
  }

  /**
   * Builds the plugin's single executable into this stack's plugin folder and gives it to the
   * engine one of the two ways docs/plugin.md shows: named in Pulumi.yaml, or installed into the
   * plugin cache (this stack's PULUMI_HOME) at the version the SDK asks for.
   */
  async installPlugin(way: PluginInstall): Promise<void> {
    execFileSync(process.execPath, [join(ROOT, "tools", "plugin-binary", "build.js"), this.pluginDir], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    if (way === "plugin install") {
      const { version } = JSON.parse(readFileSync(join(ROOT, "sdk", "schema.json"), "utf8")) as {
        version: string;
      };
      const executable = join(this.pluginDir, "pulumi-resource-dbcloud");
      await this.ok("plugin", "install", "resource", "dbcloud", version, "--file", executable);
      return;
    }
    const project = join(this.projectDir, "Pulumi.yaml");
    const plugins = `plugins:\n  providers:\n    - name: dbcloud\n      path: ${this.pluginDir}\n`;
    writeFileSync(project, `${readFileSync(project, "utf8")}${plugins}`);
  }

  /** Runs `pulumi <args> --non-interactive` in the project; the runner takes program-running commands. */
  run(args: string[]): Promise<CliResult> {
    if (this.runProgram && PROGRAM_COMMANDS.has(args[0])) return this.runProgram(args);
    return runProcess(join(this.cliBin, "pulumi"), ["--non-interactive", ...args], this.projectDir, this.env);
  }

  /** Runs a command that must succeed; its output otherwise in the error. */
  async ok(...args: string[]): Promise<CliResult> {
    const result = await this.run(args);
    if (result.code !== 0) {
      const tail = `${result.stdout}\n${result.stderr}`.split("\n").slice(-40).join("\n");
      throw new Error(`pulumi ${args.join(" ")} failed (${result.code}):\n${tail}`);
    }
    return result;
  }

  /** Every file the backend keeps (state, history, backups), as text. */
  backendFiles(): string[] {
    const dir = join(this.root, "backend");
    return (readdirSync(dir, { recursive: true }) as string[]).flatMap((name) => {
      try {
        return [readFileSync(join(dir, name), "utf8")];
      } catch {
        return []; // a folder
      }
    });
  }

  /** Whether an executable named `name` is in a folder of the CLI's PATH. */
  onPath(name: string): boolean {
    return this.env.PATH!.split(delimiter).some((dir) => existsSync(join(dir, name)));
  }

  /** Something to undo on close (a server to stop). */
  onClose(cleanup: () => void): void {
    this.cleanups.push(cleanup);
  }

  close(): void {
    for (const cleanup of this.cleanups) cleanup();
    rmSync(this.root, { recursive: true, force: true });
  }
}
