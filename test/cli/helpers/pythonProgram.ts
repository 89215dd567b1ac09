import { execFileSync, spawn } from "node:child_process";
import { cpSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { cachedFolder, ROOT, type Missing, type CliStack } from "./cliStack";

/*
 * A Python program under the real CLI: the committed SDK (sdk/python) built into a wheel and
 * installed for this stack alone, the program served by the Pulumi Python SDK's own language
 * server (python_program_server.py), and `pulumi <command> --client <its address>`.
 */

/** The virtualenv with the Pulumi Python SDK from PyPI. */
export function pythonVenv(): string | Missing {
  const venv = cachedFolder(join(ROOT, "tools", "pulumi", "python-venv.sh"));
  return venv ?? { missing: "no Python virtualenv with the Pulumi SDK: run tools/pulumi/python-venv.sh" };
}

/** Builds sdk/python's wheel (from a copy: a build writes beside its sources) and installs it; returns its file name. */
function installSdk(stack: CliStack, venv: string, site: string): string {
  const pip = join(venv, "bin", "pip");
  const source = join(stack.root, "sdk-python");
  const wheels = join(stack.root, "wheels");
  cpSync(join(ROOT, "sdk", "python"), source, { recursive: true });
  const quiet = ["--quiet", "--disable-pip-version-check", "--no-deps"];
  execFileSync(pip, ["wheel", ...quiet, "--no-build-isolation", source, "-w", wheels]);
  const [wheel] = readdirSync(wheels);
  execFileSync(pip, ["install", ...quiet, "--target", site, join(wheels, wheel)]);
  return wheel;
}

/** Starts the program's language server; resolves with its address. Closing its stdin ends it. */
async function startServer(stack: CliStack, venv: string, site: string): Promise<string> {
  const server = spawn(
    join(venv, "bin", "python"),
    [join(__dirname, "python_program_server.py"), stack.projectDir],
    {
      cwd: stack.projectDir,
      env: { ...process.env, PYTHONPATH: site },
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  stack.onClose(() => {
    server.stdin!.end();
    server.kill("SIGTERM");
  });
  return new Promise<string>((resolve, reject) => {
    let text = "";
    server.stdout!.on("data", (chunk) => {
      text += chunk;
      if (text.includes("\n")) resolve(text.split("\n")[0]);
    });
    server.on("exit", (code) => reject(new Error(`the Python program server exited (${code})`)));
  });
}

/** Installs the SDK, starts the program's server and serves the stack's program from it; returns the wheel's name. */
export async function usePythonProgram(stack: CliStack, venv: string): Promise<string> {
  const site = join(stack.root, "site-packages");
  const wheel = installSdk(stack, venv, site);
  const address = await startServer(stack, venv, site);
  // One server for the stack's life: `up` and `preview` reach it with `--client`.
  stack.serveProgram = async () => ({ address, stop: () => undefined });
  return wheel;
}
