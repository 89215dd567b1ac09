import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runProcess, type Missing, type CliStack } from "./cliStack";

/*
 * A Go program under the real CLI: examples/go's program, on the committed SDK (sdk/go, through
 * a replace line), compiled into test/cli/go-driver, which runs it inline with the Go SDK's
 * automation API (`pulumi <command> --client <address>` against the CLI given to it).
 */

const DRIVER = join(ROOT, "test", "cli", "go-driver");

/** The `go` command, when this machine has it. */
export function goCommand(): string | Missing {
  try {
    execFileSync("go", ["version"], { stdio: "ignore" });
    return "go";
  } catch {
    return { missing: "no Go toolchain on PATH" };
  }
}

/** Builds the driver (module cache and go.sum as committed) and routes the stack's program commands to it. */
export function useGoProgram(stack: CliStack): void {
  const driver = join(stack.root, "go-driver");
  execFileSync("go", ["build", "-o", driver, "."], {
    cwd: DRIVER,
    env: { ...process.env, GOTOOLCHAIN: "local", GOFLAGS: "-mod=readonly" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  // The automation API runs <root>/bin/pulumi.
  const pulumiRoot = join(stack.root, "pulumi-root");
  mkdirSync(join(pulumiRoot, "bin"), { recursive: true });
  symlinkSync(join(stack.cliBin, "pulumi"), join(pulumiRoot, "bin", "pulumi"));
  stack.runProgram = ([command]) =>
    runProcess(driver, [pulumiRoot, stack.projectDir, "dev", command], stack.projectDir, stack.env);
}
