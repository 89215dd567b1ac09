import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { cliBin, ROOT } from "./toolchain";

export { cachedFolder, cliBin, ROOT, type Missing } from "./toolchain";

/*
 * One stack `dev` driven through the real `pulumi` CLI as a user drives it: its own file backend,
 * PULUMI_HOME, passphrase and offline settings in a temporary folder, and a project folder. The
 * plugin reaches the engine as a Node.js user installs it (the npm bin on PATH, node_modules beside
 * the program) or as any other user does (the single executable, named in Pulumi.yaml or put in
 * the plugin cache with `pulumi plugin install`, and nothing but the CLI on PATH, no node).
 * A TypeScript program is served inline (programServer.ts); a YAML program runs in the real YAML
 * language host; a Python or Go program is served by its language's helper (pythonProgram.ts,
 * goProgram.ts), which sets `serveProgram` or `runProgram`.
 */

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** How the engine gets the plugin. */
export type PluginWay = "npm bin on PATH" | "Pulumi.yaml" | "plugin install";

export interface CliStackOptions {
  /** The project: Pulumi.yaml's text, or a folder under examples/ copied whole. */
  project: { yaml: string } | { example: string };
  /** A TypeScript program served inline to the commands that run the program. */
  program?: string;
  /** Default "npm bin on PATH"; the other two give the single executable, with no node on PATH. */
  plugin?: PluginWay;
  /** Variables for every command (and so for the plugins the engine starts). */
  env?: Record<string, string>;
}

/** A language server serving the program, for one command or for the stack's life. */
export interface ProgramServer {
  address: string;
  stop(): void;
}

const PASSPHRASE = "real-engine-suite-passphrase";
/** Commands that run the program: they need the program's server (refresh and destroy do not). */
const RUNS_PROGRAM = new Set(["up", "preview"]);
/** Commands a language's own runner takes over when it sets `runProgram`. */
const RUNNER_COMMANDS = new Set(["preview", "up", "refresh", "destroy"]);

export class CliStack {
  readonly root = mkdtempSync(join(tmpdir(), "dbcloud-cli-"));
  readonly projectDir = join(this.root, "project");
  /** The npm bin's stderr (the npm way only). */
  readonly pluginLog = join(this.root, "plugin.log");
  /** The single executable's folder (the other ways). */
  readonly pluginDir = join(this.root, "plugin");
  readonly cliBin: string;
  readonly env: NodeJS.ProcessEnv;
  readonly plugin: PluginWay;
  /** Serves the program to `up` and `preview`; the inline TypeScript program's unless a helper sets it. */
  serveProgram: (() => Promise<ProgramServer>) | undefined;
  /** Takes the program-running commands whole (their arguments, `pulumi` left out). */
  runProgram: ((args: string[]) => Promise<CliResult>) | undefined;
  /** Everything every command printed, stdout and stderr: for the secrets checks. */
  readonly printed: string[] = [];
  private readonly cleanups: (() => void)[] = [];

  /** A stack initialised, its plugin given to the engine. */
  static async start(options: CliStackOptions): Promise<CliStack> {
    const stack = new CliStack(options);
    try {
      await stack.installPlugin();
      await stack.ok(["stack", "init", "dev"]);
      return stack;
    } catch (error) {
      stack.close();
      throw error;
    }
  }

  private constructor(options: CliStackOptions) {
    const bin = cliBin();
    if (typeof bin !== "string") throw new Error(bin.missing);
    this.cliBin = bin;
    this.plugin = options.plugin ?? "npm bin on PATH";
    if ("example" in options.project)
      cpSync(join(ROOT, "examples", options.project.example), this.projectDir, { recursive: true });
    else {
      mkdirSync(this.projectDir);
      writeFileSync(join(this.projectDir, "Pulumi.yaml"), options.project.yaml);
    }
    for (const dir of ["backend", "home"]) mkdirSync(join(this.root, dir));
    this.useProgram(options.program);
    const settings = {
      PULUMI_BACKEND_URL: `file://${join(this.root, "backend")}`,
      PULUMI_HOME: join(this.root, "home"),
      PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PULUMI_DIY_BACKEND_NO_LEGACY_WARNING: "true",
      NO_COLOR: "1",
      ...options.env,
    };
    this.env =
      this.plugin === "npm bin on PATH"
        ? { ...process.env, PATH: this.npmBinPath(), ...settings }
        : // Only the CLI's folder: no node, no plugin on PATH.
          { PATH: bin, HOME: join(this.root, "home"), PULUMI_IGNORE_AMBIENT_PLUGINS: "true", ...settings };
  }

  /** PATH with the npm bin, as `npm install -g pulumi-dbcloud` puts it there, and node_modules beside the program. */
  private npmBinPath(): string {
    symlinkSync(join(ROOT, "node_modules"), join(this.projectDir, "node_modules"), "dir");
    const pluginBin = join(this.root, "plugin-bin");
    mkdirSync(pluginBin);
    // Its stderr kept for the secrets check.
    writeFileSync(
      join(pluginBin, "pulumi-resource-dbcloud"),
      `#!/bin/sh\nexec node ${join(ROOT, "dist", "plugin", "main.js")} "$@" 2>>${this.pluginLog}\n`,
      { mode: 0o755 },
    );
    const sdkBin = join(ROOT, "node_modules", "@pulumi", "pulumi");
    return [this.cliBin, pluginBin, sdkBin, process.env.PATH].join(delimiter);
  }

  /**
   * The single executable, built into this stack's plugin folder and given to the engine one of
   * the two ways docs/plugin.md shows: named in Pulumi.yaml, or installed into the plugin cache
   * (this stack's PULUMI_HOME) at the version the SDK asks for.
   */
  private async installPlugin(): Promise<void> {
    if (this.plugin === "npm bin on PATH") return;
    execFileSync(process.execPath, [join(ROOT, "tools", "plugin-binary", "build.js"), this.pluginDir], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    if (this.plugin === "plugin install") {
      const schema = JSON.parse(readFileSync(join(ROOT, "sdk", "schema.json"), "utf8")) as {
        version: string;
      };
      const executable = join(this.pluginDir, "pulumi-resource-dbcloud");
      await this.ok(["plugin", "install", "resource", "dbcloud", schema.version, "--file", executable]);
      return;
    }
    const project = join(this.projectDir, "Pulumi.yaml");
    const plugins = `plugins:\n  providers:\n    - name: dbcloud\n      path: ${this.pluginDir}\n`;
    writeFileSync(project, `${readFileSync(project, "utf8")}${plugins}`);
  }

  /** Swaps the inline TypeScript program (the move to other resource types); Pulumi.yaml too when given. */
  useProgram(program: string | undefined, projectYaml?: string): void {
    this.serveProgram = program ? () => startProgramServer(program) : undefined;
    if (projectYaml) writeFileSync(join(this.projectDir, "Pulumi.yaml"), projectYaml);
  }

  /** `pulumi config set` (with `--secret` or `--path` when asked). */
  async configSet(key: string, value: string, flags: ("--secret" | "--path")[] = []): Promise<void> {
    await this.ok(["config", "set", ...flags, "--", key, value]); // a value may begin with "-"
  }

  /** Runs a command that must succeed; its result otherwise in the error. */
  async ok(args: string[]): Promise<CliResult> {
    const result = await this.run(args);
    if (result.code !== 0) {
      const tail = `${result.stdout}\n${result.stderr}`.split("\n").slice(-40).join("\n");
      throw new Error(`pulumi ${args.join(" ")} failed (${result.code}):\n${tail}`);
    }
    return result;
  }

  /**
   * Runs `pulumi <args> --non-interactive` in the project. `onStarted` gets the CLI's process once
   * it runs (to signal it); a program server started for the command lives exactly as long.
   */
  async run(
    args: string[],
    onStarted?: (cli: ChildProcess, output: () => string) => void,
  ): Promise<CliResult> {
    const result = await this.runCommand(args, onStarted);
    this.printed.push(result.stdout, result.stderr);
    return result;
  }

  private async runCommand(
    args: string[],
    onStarted?: (cli: ChildProcess, output: () => string) => void,
  ): Promise<CliResult> {
    if (this.runProgram && RUNNER_COMMANDS.has(args[0])) return this.runProgram(args);
    const server = this.serveProgram && RUNS_PROGRAM.has(args[0]) ? await this.serveProgram() : undefined;
    try {
      const flags = ["--non-interactive", ...(server ? ["--client", server.address] : [])];
      // Flags go before a `--`, after which everything is a value.
      const end = args.includes("--") ? args.indexOf("--") : args.length;
      const withFlags = [...args.slice(0, end), ...flags, ...args.slice(end)];
      return await runProcess(join(this.cliBin, "pulumi"), withFlags, this.projectDir, this.env, onStarted);
    } finally {
      server?.stop();
    }
  }

  /** `pulumi stack export`, parsed. */
  async exportStack(): Promise<StackExport> {
    return JSON.parse((await this.ok(["stack", "export", "--show-secrets=false"])).stdout) as StackExport;
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

export interface StackResource {
  urn: string;
  type: string;
  id?: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}
export interface StackExport {
  deployment: { resources?: StackResource[]; pending_operations?: unknown[] };
}

/** The resource of `type` named `name` in an export. */
export function resourceOf(exported: StackExport, type: string, name: string): StackResource | undefined {
  return exported.deployment.resources?.find((r) => r.type === type && r.urn.endsWith(`::${name}`));
}

/** Runs a process to its end, collecting its output; `onStarted` gets it once it runs. */
export function runProcess(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  onStarted?: (child: ChildProcess, output: () => string) => void,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
    onStarted?.(child, () => stdout + stderr);
  });
}

/** The inline program's language server, started for one command; resolves with its address. */
function startProgramServer(program: string): Promise<ProgramServer> {
  const script = join(__dirname, "programServer.ts");
  const child = spawn(process.execPath, ["-r", "ts-node/register/transpile-only", script, program], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let text = "";
    child.stdout!.on("data", (chunk) => {
      text += chunk;
      if (text.includes("\n"))
        resolve({ address: text.split("\n")[0].trim(), stop: () => child.kill("SIGTERM") });
    });
    child.on("exit", (code) => reject(new Error(`the program server exited (${code}) before listening`)));
  });
}
