import { execFileSync, spawn, type ChildProcess } from "node:child_process";
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

/*
 * A Python program on the committed SDK (sdk/python, built into a wheel and installed for this
 * stack alone), run under the real `pulumi` CLI with the single-executable plugin and no Node.js
 * on the CLI's PATH. The program is served inline by the Pulumi Python SDK's own language server
 * (python_program_server.py); the engine, the plugin protocol and the backend are the CLI's.
 */

const ROOT = join(__dirname, "..", "..", "..");
const PASSPHRASE = "python-sdk-suite-passphrase";
/** Commands that run the program, and so need the program server's address. */
const RUNS_PROGRAM = new Set(["up", "preview"]);

/** A script that prints a cache folder when it is complete (exit 3 when it is not). */
function cachedFolder(script: string): string | undefined {
  if (!existsSync(script)) return undefined;
  try {
    return execFileSync("bash", [script, "--check"], { encoding: "utf8" }).trim().split("\n").pop();
  } catch {
    return undefined;
  }
}

export interface PythonToolchain {
  /** The folder holding `pulumi` (and nothing that is Node.js). */
  cliBin: string;
  /** The virtualenv with the Pulumi Python SDK from PyPI. */
  venv: string;
}

/** The CLI and the virtualenv when both are built; else the reason, in one line. */
export function pythonToolchain(): PythonToolchain | string {
  const toolchain = cachedFolder(join(ROOT, "tools", "pulumi", "build.sh"));
  const cliBin = process.env.DBCLOUD_PULUMI_BIN ?? (toolchain && join(toolchain, "bin"));
  if (!cliBin || !existsSync(join(cliBin, "pulumi")))
    return "the Pulumi CLI is not built: `npm run test:cli` builds it (or set DBCLOUD_PULUMI_BIN)";
  const venv = cachedFolder(join(ROOT, "tools", "pulumi", "python-venv.sh"));
  if (!venv) return "no Python virtualenv with the Pulumi SDK: run tools/pulumi/python-venv.sh";
  return { cliBin, venv };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export class PythonStack {
  readonly root = mkdtempSync(join(tmpdir(), "dbcloud-python-"));
  readonly projectDir = join(this.root, "project");
  readonly pluginDir = join(this.root, "plugin");
  readonly env: NodeJS.ProcessEnv;
  private readonly site = join(this.root, "site-packages");
  private server: { process: ChildProcess; address: string } | undefined;

  constructor(
    private readonly toolchain: PythonToolchain,
    example: string,
    env: Record<string, string>,
  ) {
    cpSync(join(ROOT, "examples", example), this.projectDir, { recursive: true });
    for (const dir of ["backend", "home"]) mkdirSync(join(this.root, dir));
    // Only the CLI's folder: no node, no python, no plugin on PATH.
    this.env = {
      PATH: toolchain.cliBin,
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

  /** Builds the plugin's single executable into this stack's plugin folder and names it in Pulumi.yaml. */
  buildPlugin(): string {
    const printed = execFileSync(
      process.execPath,
      [join(ROOT, "tools", "plugin-binary", "build.js"), this.pluginDir],
      {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const project = join(this.projectDir, "Pulumi.yaml");
    writeFileSync(
      project,
      `${readFileSync(project, "utf8")}plugins:\n  providers:\n    - name: dbcloud\n      path: ${this.pluginDir}\n`,
    );
    return printed.trim().split("\n").pop()!;
  }

  /** Builds sdk/python's wheel (from a copy: the build writes beside its sources) and installs it here. */
  installSdk(): string {
    const pip = join(this.toolchain.venv, "bin", "pip");
    const source = join(this.root, "sdk-python");
    cpSync(join(ROOT, "sdk", "python"), source, { recursive: true });
    const quiet = ["--quiet", "--disable-pip-version-check", "--no-deps"];
    execFileSync(pip, ["wheel", ...quiet, "--no-build-isolation", source, "-w", join(this.root, "wheels")]);
    const [wheel] = readdirSync(join(this.root, "wheels"));
    execFileSync(pip, ["install", ...quiet, "--target", this.site, join(this.root, "wheels", wheel)]);
    return wheel;
  }

  /** Starts the program's language server (stdin held open: closing it ends the server). */
  async startProgram(): Promise<void> {
    const python = join(this.toolchain.venv, "bin", "python");
    const child = spawn(python, [join(__dirname, "python_program_server.py"), this.projectDir], {
      cwd: this.projectDir,
      env: { ...process.env, PYTHONPATH: this.site },
      stdio: ["pipe", "pipe", "inherit"],
    });
    const address = await new Promise<string>((resolve, reject) => {
      let text = "";
      child.stdout!.on("data", (chunk) => {
        text += chunk;
        if (text.includes("\n")) resolve(text.split("\n")[0]);
      });
      child.on("exit", (code) => reject(new Error(`the program server exited (${code})`)));
    });
    this.server = { process: child, address };
  }

  /** Runs `pulumi <args> --non-interactive` in the project; the program's address for up and preview. */
  run(args: string[]): Promise<CliResult> {
    const client = this.server && RUNS_PROGRAM.has(args[0]) ? ["--client", this.server.address] : [];
    return new Promise((resolve, reject) => {
      const cli = spawn(join(this.toolchain.cliBin, "pulumi"), [...args, "--non-interactive", ...client], {
        cwd: this.projectDir,
        env: this.env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      cli.stdout.on("data", (chunk) => (stdout += chunk));
      cli.stderr.on("data", (chunk) => (stderr += chunk));
      cli.on("error", reject);
      cli.on("close", (code) => resolve({ code, stdout, stderr }));
    });
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

  close(): void {
    this.server?.process.stdin?.end();
    this.server?.process.kill("SIGTERM");
    rmSync(this.root, { recursive: true, force: true });
  }
}
