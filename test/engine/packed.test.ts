import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import type { Emulator } from "../../src/emulator";
import { captureProgram, type CapturedResource } from "../../src/engine-driver/capture";
import { EngineStack } from "../../src/engine-driver/stack";
import { startProviderHost, type ProviderHost } from "../../src/engine-driver/host";
import { installUnpacked, pack, ROOT, startConsumerEmulator, type Packed } from "../helpers/packed";
import { providerConfig } from "../helpers/providerConfig";
import { GetSchemaRequest, type GetSchemaResponse } from "@pulumi/pulumi/proto/provider_pb";
import { binCommand, sourcePluginCommand, startPlugin } from "../plugin/pluginProcess";

/*
 * The package as users get it. `npm pack`, unpack the tarball into a temporary
 * project's node_modules (its dependencies linked from this repository's node_modules: no
 * network), run the example program there under mocks, and drive the real host from that
 * project. The serialized provider must require `pulumi-dbcloud/provider` by reference.
 */

const PROJECT = "packed-consumer";
const ORG = "0b7d4c2a-1e3f-4a5b-8c6d-7e8f9a0b1c2d";
const SERVICE = "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f";
const ENDPOINT = "rpe-packed";
/** MD5 of the Apache License 2.0 text as apache.org publishes it (LICENSE-2.0.txt). */
const APACHE_2_0_MD5 = "3b83ef96387f14655fc854ddc3c6bd57";

/** Every file under dist/ with one of the given endings, relative to the repository. */
function built(endings: string[], dir = join(ROOT, "dist")): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return built(endings, full);
    return endings.some((e) => entry.name.endsWith(e)) ? [relative(ROOT, full)] : [];
  });
}

describe("engine: the packed and installed package", function () {
  this.timeout(120_000);
  let project: string;
  let packed: Packed;
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
    packed = pack(project);
    installUnpacked(project, packed.tarball);
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: PROJECT, private: true }));
    for (const file of ["index.ts", "config.ts"])
      copyFileSync(join(ROOT, "examples", "basic", file), join(project, file));

    emulator = await startConsumerEmulator({
      organizationId: ORG,
      id: SERVICE,
      name: "packed",
      endpointId: ENDPOINT,
    });
    config = {
      ...providerConfig(emulator, { organizationId: ORG, rateLimit: "10/1s" }),
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

  it("holds compiled code, declarations, README, LICENSE, CHANGELOG and the source-plugin folder, and nothing else", () => {
    const expected = [
      ...built([".js", ".d.ts"]),
      "CHANGELOG.md",
      "LICENSE",
      "README.md",
      "package.json",
      "plugin/PulumiPlugin.yaml",
      "plugin/index.js",
      "plugin/package.json",
    ].sort();
    assert.deepEqual([...packed.files].sort(), expected);
    for (const file of [
      "dist/index.js",
      "dist/index.d.ts",
      "dist/provider/index.js",
      "dist/emulator/cli/main.js",
    ])
      assert.ok(packed.files.includes(file), `${file} is in the tarball`);
    // No source maps (they would point at src/, which is not shipped), and no comment asking for one.
    for (const file of packed.files.filter((f) => f.endsWith(".js"))) {
      const text = readFileSync(join(project, "node_modules", "pulumi-dbcloud", file), "utf8");
      assert.ok(!text.includes("sourceMappingURL"), `${file} refers to a source map`);
    }
    console.log(
      `      tarball: ${packed.files.length} files, ${packed.size} bytes packed, ${packed.unpackedSize} unpacked`,
    );
  });

  it("serves the provider plugin from its bin and from its source-plugin folder", async () => {
    const installed = join(project, "node_modules", "pulumi-dbcloud");
    for (const command of [binCommand(installed), sourcePluginCommand(join(installed, "plugin"))]) {
      assert.ok(command.at(-1)!.startsWith(installed), `${command.at(-1)} is the installed package's`);
      const plugin = await startPlugin(command, { engine: "127.0.0.1:1", cwd: project });
      try {
        const served = await plugin.call<GetSchemaResponse>("getSchema", new GetSchemaRequest());
        assert.equal(JSON.parse(served.getSchema()).name, "dbcloud");
        assert.deepEqual(plugin.stdout, []);
      } finally {
        await plugin.stop();
      }
    }
  });

  it("ships the Apache-2.0 license its package.json names, as the standard text", () => {
    const installed = join(project, "node_modules", "pulumi-dbcloud");
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as { license: string };
    assert.equal(manifest.license, "Apache-2.0");
    const text = readFileSync(join(installed, "LICENSE"));
    assert.equal(createHash("md5").update(text).digest("hex"), APACHE_2_0_MD5);
  });

  for (const moduleResolution of ["node16", "bundler"] as const) {
    it(`compiles a strict consumer against the packed types (moduleResolution ${moduleResolution})`, () => {
      const consumer = join(project, "consumer");
      writeConsumer(consumer);
      const tsconfig = join(consumer, `tsconfig.${moduleResolution}.json`);
      writeFileSync(
        tsconfig,
        JSON.stringify({
          compilerOptions: {
            strict: true,
            noEmit: true,
            target: "ES2022",
            module: moduleResolution === "node16" ? "node16" : "preserve",
            moduleResolution,
            types: ["node"],
            // Our own declarations are type-checked through the imports; third-party ones are not ours.
            skipLibCheck: true,
          },
          files: ["index.ts"],
        }),
      );
      const tsc = join(project, "node_modules", "typescript", "bin", "tsc");
      let listed: string;
      try {
        listed = execFileSync(process.execPath, [tsc, "-p", tsconfig, "--listFiles"], {
          cwd: consumer,
          encoding: "utf8",
          maxBuffer: 64 * 1024 * 1024,
        });
      } catch (error) {
        assert.fail(`tsc failed:\n${(error as { stdout?: string }).stdout}`);
      }
      // It compiled against the packed copy's declarations, not this repository's sources.
      const files = listed.split("\n").map((line) => line.trim());
      const installed = join(project, "node_modules", "pulumi-dbcloud", "dist");
      for (const file of ["index.d.ts", "resources/serviceRunState.d.ts", "provider/index.d.ts"])
        assert.ok(files.includes(join(installed, file)), `compiled against ${file} of the tarball`);
      assert.deepEqual(
        files.filter((file) => file.startsWith(join(ROOT, "src"))),
        [],
      );
    });
  }

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

/**
 * A strict consumer program: constructs both resources with `Input`s, reads their typed
 * `Output`s. The `@ts-expect-error` lines fail the compile if the types ever degrade to `any`.
 */
function writeConsumer(dir: string): void {
  const source = `import * as pulumi from "@pulumi/pulumi";
import {
  ReversePrivateEndpointDeletion,
  ServiceRunState,
  type EndpointOutput,
  type ReversePrivateEndpointDeletionArgs,
  type ServiceRunStateArgs,
} from "pulumi-dbcloud";
import type { serviceRunStateRead } from "pulumi-dbcloud/provider";

const serviceId: pulumi.Input<string> = pulumi.output("3f2a1c9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b");
const args: ServiceRunStateArgs = {
  organizationId: pulumi.secret("0b7d4c2a-1e3f-4a5b-8c6d-7e8f9a0b1c2d"),
  serviceId,
  state: pulumi.output<"running" | "stopped">("running"),
  timeoutSeconds: pulumi.output(600),
  waitForState: true,
};
const run = new ServiceRunState("analytics", args, { customTimeouts: { create: "20m" } });

const observed: pulumi.Output<string> = run.observedState;
const desired: pulumi.Output<"running" | "stopped"> = run.state;
const timeout: pulumi.Output<number> = run.timeoutSeconds;
const deleteTimeout: pulumi.Output<number | undefined> = run.deleteTimeoutSeconds;
const waits: pulumi.Output<boolean> = run.waitForState;
const endpoints: pulumi.Output<EndpointOutput[]> = run.endpoints;
const firstPort: pulumi.Output<number | undefined> = run.endpoints.apply((list) => list[0]?.port);
const user: pulumi.Output<string | null | undefined> = run.endpoints.apply((list) => list[0]?.username);

const endpointArgs: ReversePrivateEndpointDeletionArgs = {
  serviceId: run.serviceId,
  reversePrivateEndpointId: pulumi.interpolate\`rpe-\${run.serviceName}\`,
};
const endpoint = new ReversePrivateEndpointDeletion("pipes", endpointArgs, { dependsOn: [run] });
const endpointId: pulumi.Output<string> = endpoint.reversePrivateEndpointId;
const organization: pulumi.Output<string> = endpoint.organizationId;
const resourceId: pulumi.Output<string> = endpoint.id;

// @ts-expect-error state is "running" or "stopped"
new ServiceRunState("bad-state", { serviceId, state: "paused" });
// @ts-expect-error serviceId is required
new ReversePrivateEndpointDeletion("no-service", { reversePrivateEndpointId: "rpe-1" });
// @ts-expect-error observedState is a string output, not a number output
const wrong: pulumi.Output<number> = run.observedState;
// @ts-expect-error deleteTimeoutSeconds has no default: it may be unset
const alwaysSet: pulumi.Output<number> = run.deleteTimeoutSeconds;

type Read = typeof serviceRunStateRead;
export const outputs = { observed, desired, timeout, deleteTimeout, alwaysSet, waits, endpoints, firstPort, user, endpointId, organization, resourceId, wrong };
export type { Read };
`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "index.ts"), source);
}
