import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator, type Emulator } from "../../src/emulator";
import { captureProgram, type CapturedResource } from "../../src/engine-driver/capture";
import { EngineStack } from "../../src/engine-driver/stack";
import { startProviderHost, type ProviderHost } from "../../src/engine-driver/host";

/*
 * The package as users get it. `npm pack`, unpack the tarball into a temporary
 * project's node_modules (its dependencies linked from this repository's node_modules: no
 * network), run the example program there under mocks, and drive the real host from that
 * project. The serialized provider must require `pulumi-dbcloud/provider` by reference.
 */

const ROOT = join(__dirname, "..", "..");
const PROJECT = "packed-consumer";
const ORG = "0b7d4c2a-1e3f-4a5b-8c6d-7e8f9a0b1c2d";
const SERVICE = "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f";
const ENDPOINT = "rpe-packed";

describe("engine: the packed and installed package", function () {
  this.timeout(120_000);
  let project: string;
  let packedFiles: string[];
  let emulator: Emulator;
  let host: ProviderHost | undefined;
  let resources: CapturedResource[];
  let config: Record<string, string>;

  before(async () => {
    assert.ok(
      existsSync(join(ROOT, "dist", "provider", "index.js")),
      "build first: npm run build (npm test does)",
    );
    project = mkdtempSync(join(tmpdir(), "dbcloud-packed-"));
    const packed = JSON.parse(
      execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", project], {
        cwd: ROOT,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }),
    ) as { filename: string; files: { path: string }[] }[];
    packedFiles = packed[0].files.map((f) => f.path);

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

    emulator = await startEmulator({
      transitions: { starting: 300, stopping: 300 },
      services: [
        {
          organizationId: ORG,
          id: SERVICE,
          name: "packed",
          state: "stopped",
          reversePrivateEndpointIds: [ENDPOINT],
        },
      ],
    });
    config = {
      "dbcloud:apiUrl": emulator.url,
      "dbcloud:apiKeyId": emulator.keyId,
      "dbcloud:apiKeySecret": emulator.keySecret,
      "dbcloud:organizationId": ORG,
      "dbcloud:rateLimit": "10/1s",
      [`${PROJECT}:services`]: JSON.stringify([{ name: "packed", serviceId: SERVICE, state: "running" }]),
      [`${PROJECT}:reversePrivateEndpoint`]: JSON.stringify({ serviceId: SERVICE, endpointId: ENDPOINT }),
    };
    resources = await captureProgram(join(project, "index.ts"), {
      project: PROJECT,
      stack: "test",
      config,
      secretKeys: ["dbcloud:apiKeySecret"],
      freshUnder: project,
    });
  });

  after(async () => {
    await host?.stop();
    await emulator?.close();
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it("ships the compiled library, the provider subpath and the emulator CLI, and no tests", () => {
    for (const file of [
      "dist/index.js",
      "dist/provider/index.js",
      "dist/emulator/index.js",
      "dist/emulator/cli/main.js",
      "README.md",
    ]) {
      assert.ok(packedFiles.includes(file), `${file} is in the tarball`);
    }
    assert.ok(packedFiles.includes("dist/index.d.ts"), "with declarations");
    assert.deepEqual(
      packedFiles.filter((f) => /^(test|src|examples|bench)\//.test(f) || /engine-driver/.test(f)),
      [],
    );
  });

  it("serializes providers that require pulumi-dbcloud/provider by reference, small and without credentials", () => {
    assert.equal(resources.length, 2);
    for (const resource of resources) {
      const text = resource.inputs.__provider as string;
      assert.match(text, /require\("pulumi-dbcloud\/provider"\)/);
      assert.ok(!text.includes(ROOT), "no path of this machine in the provider");
      assert.ok(!text.includes(emulator.keySecret) && !text.includes(emulator.url));
      assert.ok(text.length < 4096, `provider of ${resource.name} is ${text.length} bytes`);
      console.log(
        `      serialized provider of ${resource.name}: ${text.length} bytes (installed, by reference)`,
      );
    }
    // From the project directory (where the host runs), the subpath is the unpacked tarball's.
    const resolved = execFileSync(process.execPath, ["-p", 'require.resolve("pulumi-dbcloud/provider")'], {
      cwd: project,
      encoding: "utf8",
    }).trim();
    assert.equal(resolved, join(project, "node_modules", "pulumi-dbcloud", "dist", "provider", "index.js"));
  });

  it("runs the lifecycle from the installed package: up starts the service, destroy deletes the endpoint", async () => {
    host = await startProviderHost({ cwd: project, project: PROJECT, env: { DBCLOUD_TIME_SCALE: "0.02" } });
    const stack = new EngineStack(host, { config, secretKeys: ["dbcloud:apiKeySecret"] });
    const up = await stack.up(resources);
    assert.ok(up.ok, JSON.stringify(up.steps));
    assert.equal(stack.state().find((e) => e.name === "packed")?.outputs.observedState, "running");
    const destroyed = await stack.destroy();
    assert.ok(destroyed.ok, JSON.stringify(destroyed.steps));
    assert.equal(emulator.hasEndpoint(SERVICE, ENDPOINT), false);
    assert.equal(emulator.requests.filter((r) => r.method === "DELETE").length, 1);
    assert.equal(emulator.service(SERVICE)?.state, "running");
  });
});
