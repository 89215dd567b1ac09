/**
 * P4: the package as installed (`npm pack`, unpacked into a temporary project, as
 * test/engine/packed.test.ts does): the serialized `__provider` of each resource type, the real
 * provider host's cold start to its first answer (spawn, configure, check), and its peak RSS
 * (VmHWM) after converging 50 services through it.
 */
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator } from "../src/emulator";
import { captureProgram } from "../src/engine-driver/capture";
import { startProviderHost } from "../src/engine-driver/host";
import { stripSecrets } from "../src/engine-driver/stack";
import { spread, type Spread } from "./stats";

const ROOT = join(__dirname, "..");
const PROJECT = "bench-consumer";

export interface P4Result {
  providerBytes: Record<string, number>;
  coldStartMs: Spread;
  peakRssMb: number;
  fleetServices: number;
}

function installPacked(): string {
  const project = mkdtempSync(join(tmpdir(), "dbcloud-bench-"));
  const packed = JSON.parse(
    execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", project], {
      cwd: ROOT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }),
  ) as { filename: string }[];
  const modules = join(project, "node_modules");
  mkdirSync(join(modules, "pulumi-dbcloud"), { recursive: true });
  execFileSync("tar", [
    "-xzf",
    join(project, packed[0].filename),
    "-C",
    join(modules, "pulumi-dbcloud"),
    "--strip-components=1",
  ]);
  for (const entry of readdirSync(join(ROOT, "node_modules"))) {
    if (entry === "pulumi-dbcloud" || entry === ".bin" || entry.startsWith(".")) continue;
    symlinkSync(join(ROOT, "node_modules", entry), join(modules, entry), "dir");
  }
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: PROJECT, private: true }));
  for (const file of ["index.ts", "config.ts"])
    copyFileSync(join(ROOT, "examples", "basic", file), join(project, file));
  return project;
}

export async function runP4(fleet = 50, coldStarts = 5): Promise<P4Result> {
  const project = installPacked();
  const organizationId = randomUUID();
  const ids = Array.from({ length: fleet }, () => randomUUID());
  const emulator = await startEmulator({
    transitions: { starting: 300, stopping: 300 },
    services: ids.map((id, i) => ({
      organizationId,
      id,
      name: `p4-${i}`,
      state: "stopped",
      reversePrivateEndpointIds: i === 0 ? ["rpe-bench"] : [],
    })),
  });
  try {
    const config: Record<string, string> = {
      "dbcloud:apiUrl": emulator.url,
      "dbcloud:apiKeyId": emulator.keyId,
      "dbcloud:apiKeySecret": emulator.keySecret,
      "dbcloud:organizationId": organizationId,
      "dbcloud:rateLimit": "off",
      [`${PROJECT}:services`]: JSON.stringify([{ name: "p4", serviceId: ids[0], state: "running" }]),
      [`${PROJECT}:reversePrivateEndpoint`]: JSON.stringify({ serviceId: ids[0], endpointId: "rpe-bench" }),
    };
    const resources = await captureProgram(join(project, "index.ts"), {
      project: PROJECT,
      stack: "bench",
      config,
      secretKeys: ["dbcloud:apiKeySecret"],
      freshUnder: project,
    });
    const providerBytes: Record<string, number> = {};
    for (const r of resources)
      providerBytes[r.type.split(":").pop()!] = Buffer.byteLength(String(r.inputs.__provider));
    const runState = resources.find((r) => r.type.endsWith(":ServiceRunState"))!;
    const inputs = stripSecrets(runState.inputs) as Record<string, unknown>;

    const cold: number[] = [];
    for (let i = 0; i < coldStarts; i++) {
      const started = process.hrtime.bigint();
      const host = await startProviderHost({ cwd: project, project: PROJECT });
      await host.configure(config);
      await host.check(runState.urn, {}, inputs);
      cold.push(Number(process.hrtime.bigint() - started) / 1e6);
      await host.stop();
    }

    const host = await startProviderHost({
      cwd: project,
      project: PROJECT,
      env: { DBCLOUD_TIME_SCALE: "0.02" },
    });
    try {
      await host.configure(config);
      await Promise.all(
        ids.map(async (serviceId, i) => {
          const urn = `${runState.urn}-${i}`;
          const checked = await host.check(urn, {}, { ...inputs, serviceId, state: "running" });
          await host.create(urn, checked.inputs);
        }),
      );
      const status = readFileSync(`/proc/${host.pid}/status`, "utf8");
      const hwmKb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? NaN);
      return { providerBytes, coldStartMs: spread(cold), peakRssMb: hwmKb / 1024, fleetServices: fleet };
    } finally {
      await host.stop();
    }
  } finally {
    await emulator.close();
    rmSync(project, { recursive: true, force: true });
  }
}

if (require.main === module) {
  runP4()
    .then((r) => console.log(JSON.stringify(r)))
    .catch((e) => {
      console.error(e);
      process.exit(1);
    });
}
