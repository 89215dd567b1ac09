import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startEmulator, type Emulator } from "../../src/emulator";

/*
 * The package as users get it, without the network: `npm pack` this repository, unpack the
 * tarball as node_modules/pulumi-dbcloud of a project, and link every other dependency from this
 * repository's node_modules (so @pulumi/pulumi there is the very instance the tests use).
 */

export const ROOT = join(__dirname, "..", "..");

export interface Packed {
  /** Absolute path of the tarball. */
  tarball: string;
  /** Paths inside the package, as npm lists them. */
  files: string[];
  /** Tarball bytes, and bytes unpacked. */
  size: number;
  unpackedSize: number;
}

/** `npm pack` of `packageDir` (default: this repository) into `destination`. */
export function pack(destination: string, packageDir = ROOT): Packed {
  const [result] = JSON.parse(
    execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", destination], {
      cwd: packageDir,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }),
  ) as { filename: string; files: { path: string }[]; size: number; unpackedSize: number }[];
  return {
    tarball: join(destination, result.filename),
    files: result.files.map((f) => f.path),
    size: result.size,
    unpackedSize: result.unpackedSize,
  };
}

/**
 * Makes `project` a project with `tarball` installed as node_modules/pulumi-dbcloud and the
 * other packages linked from `modulesFrom` (default: this repository's node_modules).
 */
export function installUnpacked(
  project: string,
  tarball: string,
  modulesFrom = join(ROOT, "node_modules"),
): void {
  const modules = join(project, "node_modules");
  mkdirSync(join(modules, "pulumi-dbcloud"), { recursive: true });
  execFileSync("tar", ["-xzf", tarball, "-C", join(modules, "pulumi-dbcloud"), "--strip-components=1"]);
  for (const entry of readdirSync(modulesFrom)) {
    if (entry === "pulumi-dbcloud" || entry.startsWith(".")) continue;
    symlinkSync(join(modulesFrom, entry), join(modules, entry), "dir");
  }
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "packed-consumer", private: true }));
}

/**
 * The emulator a packed consumer's program runs against: the one stopped service the program
 * declares running, holding the one reverse private endpoint it deletes on destroy.
 */
export function startConsumerEmulator(service: {
  organizationId: string;
  id: string;
  name: string;
  endpointId: string;
}): Promise<Emulator> {
  return startEmulator({
    transitions: { starting: 300, stopping: 300 },
    services: [
      {
        organizationId: service.organizationId,
        id: service.id,
        name: service.name,
        state: "stopped",
        reversePrivateEndpointIds: [service.endpointId],
      },
    ],
  });
}
