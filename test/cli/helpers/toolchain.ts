import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

/*
 * The real Pulumi CLI and the YAML language host, as tools/pulumi/build.sh builds them into a
 * cache outside the clone. `npm run test:cli` builds them first; `npm test` runs the real-engine
 * suite only when they are already there (it needs neither Go nor the network).
 */

export const ROOT = join(__dirname, "..", "..", "..");
const BUILD_SCRIPT = join(ROOT, "tools", "pulumi", "build.sh");

/** Why a test cannot run here, in one line. */
export interface Missing {
  missing: string;
}

/** The folder holding the built `pulumi` (and nothing that is Node.js). */
export function cliBin(): string | Missing {
  const folder = cachedFolder(BUILD_SCRIPT);
  return folder
    ? join(folder, "bin")
    : { missing: "the Pulumi CLI is not built: `npm run test:cli` builds it" };
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
