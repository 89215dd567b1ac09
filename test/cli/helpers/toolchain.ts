import { execFileSync } from "node:child_process";
import { join } from "node:path";

/*
 * The real Pulumi CLI and the YAML language host, as tools/pulumi/build.sh builds them into a
 * cache outside the clone. `npm run test:cli` builds them first; `npm test` runs the real-engine
 * suite only when they are already there (it needs neither Go nor the network).
 */

export const ROOT = join(__dirname, "..", "..", "..");
const BUILD_SCRIPT = join(ROOT, "tools", "pulumi", "build.sh");

/** The toolchain's bin/ folder, or undefined when it is not built (nothing is built here). */
export function cachedToolchainBin(): string | undefined {
  try {
    const folder = execFileSync("bash", [BUILD_SCRIPT, "--check"], { encoding: "utf8" }).trim();
    return join(folder, "bin");
  } catch {
    return undefined;
  }
}
