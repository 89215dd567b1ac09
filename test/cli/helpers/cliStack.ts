import { spawn, type ChildProcess } from "node:child_process";
import {
  mkdtempSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  readdirSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { cachedToolchainBin, ROOT } from "./toolchain";

/*
 * One stack driven through the real `pulumi` CLI as a user drives it: its own file backend,
 * PULUMI_HOME, passphrase and offline settings in a temporary folder, a project folder holding
 * Pulumi.yaml (and node_modules, as a user's program has), and the provider plugin on PATH.
 * A TypeScript program is served inline (see programServer.ts); a YAML program runs in the real
 * YAML language host.
 */

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliStackOptions {
  /** Pulumi.yaml's text. */
  projectYaml: string;
  /** A TypeScript program served inline to the commands that run the program. */
  program?: string;
  /** Variables for every command (and so for the plugins the engine starts). */
  env?: Record<string, string>;
}

const PASSPHRASE = "real-engine-suite-passphrase";
/** Commands that run the program, and so need the inline program's address. */
const RUNS_PROGRAM = new Set(["up", "preview"]);

export class CliStack {
  readonly root = mkdtempSync(join(tmpdir(), "dbcloud-cli-"));
  readonly projectDir = join(this.root, "project");
  readonly pluginLog = join(this.root, "plugin.log");
  private readonly env: NodeJS.ProcessEnv;
  private program: string | undefined;

  constructor(options: CliStackOptions) {
    const bin = cachedToolchainBin();
    if (!bin) throw new Error("the Pulumi CLI is not built: run `npm run test:cli`");
    this.program = options.program;
    mkdirSync(this.projectDir);
    writeFileSync(join(this.projectDir, "Pulumi.yaml"), options.projectYaml);
    symlinkSync(join(ROOT, "node_modules"), join(this.projectDir, "node_modules"), "dir");
    const pluginBin = join(this.root, "plugin-bin");
    mkdirSync(pluginBin);
    // The npm bin, as `npm install -g pulumi-dbcloud` puts it on PATH; its stderr kept for the secrets check.
    writeFileSync(
      join(pluginBin, "pulumi-resource-dbcloud"),
      `#!/bin/sh\nexec node ${join(ROOT, "dist", "plugin", "main.js")} "$@" 2>>${this.pluginLog}\n`,
      { mode: 0o755 },
    );
    for (const dir of ["backend", "home"]) mkdirSync(join(this.root, dir));
    this.env = {
      ...process.env,
      PATH: [bin, pluginBin, join(ROOT, "node_modules", "@pulumi", "pulumi"), process.env.PATH].join(
        delimiter,
      ),
      PULUMI_BACKEND_URL: `file://${join(this.root, "backend")}`,
      PULUMI_HOME: join(this.root, "home"),
      PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PULUMI_DIY_BACKEND_NO_LEGACY_WARNING: "true",
      NO_COLOR: "1",
      ...options.env,
    };
  }

  /** Swaps the program (the move to other resource types); Pulumi.yaml too when given. */
  useProgram(program: string | undefined, projectYaml?: string): void {
    this.program = program;
    if (projectYaml) writeFileSync(join(this.projectDir, "Pulumi.yaml"), projectYaml);
  }

  /** `pulumi stack init` of the stack `dev`. */
  async init(): Promise<void> {
    await this.ok(["stack", "init", "dev"]);
  }

  /** `pulumi config set` (with `--secret` or `--path` when asked). */
  async configSet(key: string, value: string, flags: ("--secret" | "--path")[] = []): Promise<void> {
    await this.ok(["config", "set", ...flags, "--", key, value]); // a value may begin with "-"
  }

  /** Runs a command that must succeed; its result otherwise in the error. */
  async ok(args: string[]): Promise<CliResult> {
    const result = await this.run(args);
    if (result.code !== 0)
      throw new Error(`pulumi ${args.join(" ")} failed (${result.code}):\n${tail(result)}`);
    return result;
  }

  /**
   * Runs `pulumi <args> --non-interactive`. `onStarted` gets the CLI's process once it runs (to
   * signal it); an inline program's server lives exactly as long as the command.
   */
  async run(
    args: string[],
    onStarted?: (cli: ChildProcess, output: () => string) => void,
  ): Promise<CliResult> {
    const server =
      this.program && RUNS_PROGRAM.has(args[0]) ? await startProgramServer(this.program) : undefined;
    try {
      const flags = ["--non-interactive", ...(server ? ["--client", server.address] : [])];
      // Flags go before a `--`, after which everything is a value.
      const end = args.includes("--") ? args.indexOf("--") : args.length;
      const withFlags = [...args.slice(0, end), ...flags, ...args.slice(end)];
      return await runCli(withFlags, this.projectDir, this.env, onStarted);
    } finally {
      server?.process.kill("SIGTERM");
    }
  }

  /** `pulumi stack export`, parsed. */
  async exportStack(): Promise<StackExport> {
    return JSON.parse((await this.ok(["stack", "export", "--show-secrets=false"])).stdout) as StackExport;
  }

  /** Every file the backend keeps (state, history, backups), as text. */
  backendFiles(): string[] {
    const dir = join(this.root, "backend");
    return (readdirSync(dir, { recursive: true }) as string[])
      .map((name) => join(dir, name))
      .flatMap((path) => {
        try {
          return [readFileSync(path, "utf8")];
        } catch {
          return []; // a folder
        }
      });
  }

  close(): void {
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

function tail(result: CliResult): string {
  return `${result.stdout}\n${result.stderr}`.split("\n").slice(-40).join("\n");
}

function runCli(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  onStarted?: (cli: ChildProcess, output: () => string) => void,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const cli = spawn("pulumi", args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    cli.stdout.on("data", (chunk) => (stdout += chunk));
    cli.stderr.on("data", (chunk) => (stderr += chunk));
    cli.on("error", reject);
    cli.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
    onStarted?.(cli, () => stdout + stderr);
  });
}

/** The inline program's language server, started for one command; resolves with its address. */
function startProgramServer(program: string): Promise<{ process: ChildProcess; address: string }> {
  const script = join(__dirname, "programServer.ts");
  const child = spawn(process.execPath, ["-r", "ts-node/register/transpile-only", script, program], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let text = "";
    child.stdout!.on("data", (chunk) => {
      text += chunk;
      const line = text.split("\n")[0];
      if (text.includes("\n")) resolve({ process: child, address: line.trim() });
    });
    child.on("exit", (code) => reject(new Error(`the program server exited (${code}) before listening`)));
  });
}
