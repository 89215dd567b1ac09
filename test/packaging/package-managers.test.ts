import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Emulator } from "../../src/emulator";
import type { CapturedResource } from "../../src/engine-driver/capture";
import { startProviderHost, type ProviderHost } from "../../src/engine-driver/host";
import { EngineStack } from "../../src/engine-driver/stack";
import { pack, ROOT, startConsumerEmulator } from "../helpers/packed";
import { providerConfig } from "../helpers/providerConfig";

/*
 * The packed tarball installed from the registry into a fresh project by npm, pnpm (its default
 * isolated layout) and yarn (node-modules linker), each with its own @pulumi/pulumi, then the
 * lifecycle through the real provider host started from that project: up, refresh after an
 * out-of-band stop, up again, destroy.
 *
 * Needs the npm registry (pnpm and yarn themselves come from it, at pinned versions, installed
 * by this test): so it is not part of `npm test`, which stays offline; CI runs it as its own
 * stage (`node test/run.js packaging`, see .ci/matrix.js).
 */

const PNPM = "12.21.0";
const YARN = "4.18.1";
const PROJECT = "pm-consumer";
const ORG = "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e";
const SERVICE = "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f";
const ENDPOINT = "rpe-pm";

/** Versions the consumer asks for: the ones this repository was installed with. */
const versionOf = (name: string) =>
  (JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8")) as { version: string })
    .version;

/**
 * Runs the program under Pulumi's mocks in a child process of the consumer project, so that the
 * project's own @pulumi/pulumi (whatever layout its package manager made) serializes the providers.
 */
const CAPTURE = `
const pulumi = require("@pulumi/pulumi");
const captured = [];
pulumi.runtime.setMocks({
  newResource(args) {
    captured.push({ type: args.type, name: args.name, inputs: args.inputs });
    return { id: args.name + "-id", state: args.inputs };
  },
  call: (args) => args.inputs,
}, process.env.CAPTURE_PROJECT, "test", false);
pulumi.runtime.setAllConfig(JSON.parse(process.env.CAPTURE_CONFIG), ["dbcloud:apiKeySecret"]);
require("./index.js");
pulumi.runtime.waitForRPCs().then(() => process.stdout.write(JSON.stringify(captured)));
`;

const PROGRAM = `
const { ServiceRunState, ReversePrivateEndpointDeletion } = require("pulumi-dbcloud");
new ServiceRunState("svc", { serviceId: "${SERVICE}", state: "running" });
new ReversePrivateEndpointDeletion("endpoint", { serviceId: "${SERVICE}", reversePrivateEndpointId: "${ENDPOINT}" });
`;

interface Manager {
  name: "npm" | "pnpm" | "yarn";
  install(project: string): void;
  /** Checks that the layout is the one this manager is known for. */
  layout(project: string): void;
}

describe("package managers: the packed tarball installed with npm, pnpm and yarn", function () {
  this.timeout(600_000);
  let work: string;
  let tarball: string;
  let tools: string;
  const env = {
    ...process.env,
    // Under CI=true, pnpm and yarn refuse to write a lock file; these projects start without one.
    YARN_ENABLE_IMMUTABLE_INSTALLS: "false",
    YARN_ENABLE_TELEMETRY: "false",
    COREPACK_ENABLE_STRICT: "0",
  };
  const run = (cwd: string, command: string, args: string[]) =>
    execFileSync(command, args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

  before(() => {
    work = mkdtempSync(join(tmpdir(), "dbcloud-pm-"));
    tarball = pack(work).tarball;
    tools = join(work, "tools");
    mkdirSync(tools);
    writeFileSync(join(tools, "package.json"), JSON.stringify({ name: "tools", private: true }));
    run(tools, "npm", [
      "install",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      `pnpm@${PNPM}`,
      `@yarnpkg/cli-dist@${YARN}`,
    ]);
  });
  after(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const manifest = () => ({
    name: PROJECT,
    private: true,
    dependencies: {
      "pulumi-dbcloud": `file:${tarball}`,
      "@pulumi/pulumi": versionOf("@pulumi/pulumi"),
      // Pulumi's closure serializer parses functions with TypeScript (an optional peer of it).
      typescript: versionOf("typescript"),
    },
  });

  const managers: Manager[] = [
    {
      name: "npm",
      install: (project) => run(project, "npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"]),
      layout: (project) => {
        assert.ok(lstatSync(join(project, "node_modules", "pulumi-dbcloud")).isDirectory());
        assert.ok(existsSync(join(project, "node_modules", "undici")), "npm hoists dependencies");
      },
    },
    {
      name: "pnpm",
      install: (project) => {
        // pnpm 11+ stops at dependencies' build scripts nobody approved; the only one here is
        // protobufjs's (via @pulumi/pulumi), a version notice that nothing needs.
        writeFileSync(join(project, "pnpm-workspace.yaml"), "strictDepBuilds: false\n");
        // pnpm 11+ ships a native executable: run the bin link, not `node <file>`.
        return run(project, join(tools, "node_modules", ".bin", "pnpm"), [
          "install",
          "--no-frozen-lockfile",
          `--store-dir=${join(work, "pnpm-store")}`,
          "--reporter=silent",
        ]);
      },
      layout: (project) => {
        const link = join(project, "node_modules", "pulumi-dbcloud");
        assert.ok(lstatSync(link).isSymbolicLink(), "pnpm links the package");
        assert.match(realpathSync(link), /[\\/]node_modules[\\/]\.pnpm[\\/]/, "into its virtual store");
        assert.ok(!existsSync(join(project, "node_modules", "undici")), "isolated: no hoisted undici");
      },
    },
    {
      name: "yarn",
      install: (project) => {
        writeFileSync(
          join(project, ".yarnrc.yml"),
          `nodeLinker: node-modules\nenableGlobalCache: false\ncacheFolder: ${join(work, "yarn-cache")}\n`,
        );
        writeFileSync(join(project, "yarn.lock"), "");
        run(project, join(tools, "node_modules", ".bin", "yarn"), ["install"]);
      },
      layout: (project) => {
        assert.ok(lstatSync(join(project, "node_modules", "pulumi-dbcloud")).isDirectory());
        assert.ok(!existsSync(join(project, ".pnp.cjs")), "node-modules linker, not Plug'n'Play");
      },
    },
  ];

  for (const manager of managers) {
    describe(manager.name, () => {
      let project: string;
      let emulator: Emulator;
      let host: ProviderHost | undefined;
      let resources: CapturedResource[];
      let config: Record<string, string>;

      before(async () => {
        project = join(work, manager.name);
        mkdirSync(project);
        writeFileSync(join(project, "package.json"), JSON.stringify(manifest(), null, 2));
        manager.install(project);
        writeFileSync(join(project, "index.js"), PROGRAM);
        writeFileSync(join(project, "capture.js"), CAPTURE);

        emulator = await startConsumerEmulator({
          organizationId: ORG,
          id: SERVICE,
          name: "pm",
          endpointId: ENDPOINT,
        });
        config = providerConfig(emulator, { organizationId: ORG, rateLimit: "10/1s" });
        const captured = JSON.parse(
          execFileSync(process.execPath, ["capture.js"], {
            cwd: project,
            env: { ...env, CAPTURE_PROJECT: PROJECT, CAPTURE_CONFIG: JSON.stringify(config) },
            encoding: "utf8",
          }),
        ) as { type: string; name: string; inputs: Record<string, unknown> }[];
        resources = captured.map((r) => ({
          ...r,
          urn: `urn:pulumi:test::${PROJECT}::${r.type}::${r.name}`,
          providerIsSecret: false,
        }));
      });

      after(async () => {
        await host?.stop();
        await emulator?.close();
      });

      it(`installs with ${manager.name} in its usual layout, and serializes providers by package name`, () => {
        manager.layout(project);
        assert.equal(
          versionOf("@pulumi/pulumi"),
          (
            JSON.parse(
              readFileSync(join(project, "node_modules", "@pulumi", "pulumi", "package.json"), "utf8"),
            ) as {
              version: string;
            }
          ).version,
        );
        assert.equal(resources.length, 2);
        for (const resource of resources) {
          const text = resource.inputs.__provider as string;
          assert.equal(typeof text, "string");
          assert.match(text, /require\("pulumi-dbcloud\/provider"\)/);
          // The failure Pulumi documents for pnpm: a path into the store captured in the state.
          assert.ok(
            !text.includes(project) && !text.includes(".pnpm"),
            "no path of this install in the provider",
          );
        }
      });

      it(`runs up, refresh after drift, up and destroy through the real host from the ${manager.name} project`, async () => {
        host = await startProviderHost({
          cwd: project,
          project: PROJECT,
          env: { DBCLOUD_TIME_SCALE: "0.02" },
        });
        const stack = new EngineStack(host, { config, secretKeys: ["dbcloud:apiKeySecret"] });
        const up = await stack.up(resources);
        assert.ok(up.ok, JSON.stringify(up.steps));
        assert.equal(emulator.service(SERVICE)?.state, "running");

        emulator.setState(SERVICE, "stopped");
        const refresh = await stack.refresh();
        assert.ok(refresh.ok, JSON.stringify(refresh.steps));
        assert.equal(refresh.steps.find((s) => s.name === "svc")?.kind, "drift");

        const again = await stack.up(resources);
        assert.ok(again.ok, JSON.stringify(again.steps));
        assert.equal(again.steps.find((s) => s.name === "svc")?.kind, "update");
        assert.equal(emulator.service(SERVICE)?.state, "running");

        const destroyed = await stack.destroy();
        assert.ok(destroyed.ok, JSON.stringify(destroyed.steps));
        assert.equal(emulator.hasEndpoint(SERVICE, ENDPOINT), false);
        assert.deepEqual(stack.state(), []);
      });
    });
  }
});
