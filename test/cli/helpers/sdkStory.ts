import assert from "node:assert/strict";
import { statSync } from "node:fs";
import { join } from "node:path";
import { startEmulator, type Emulator } from "../../../src/emulator";
import { cliBin, SdkStack, type Missing, type PluginInstall } from "./sdkStack";

/*
 * The story every SDK's program tells under the real CLI, against the emulator: preview sends
 * nothing, up starts the service, refresh sees it stopped outside Pulumi, up starts it again, the
 * program's stop stops it, destroy leaves it; the key's secret nowhere.
 */

const ORG = "5f0c3a52-8d1e-4b7a-9c63-0e2f7d4a1b90";
const SERVICE = "0b6f2f1e-3c4d-4e5f-8a9b-1c2d3e4f5a60";
const TYPE = "dbcloud:index:ServiceRunState";

interface StackResource {
  urn: string;
  type: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}

export interface SdkStoryOptions {
  /** The folder under examples/. */
  example: string;
  /** What else the language needs, checked before anything runs: a string says what is missing. */
  requirements: () => (string | Missing)[];
  /** Installs the language's SDK and routes the stack's program commands. */
  useProgram: (stack: SdkStack, requirements: string[]) => Promise<void> | void;
  /** How the engine gets the plugin (both ways docs/plugin.md gives). */
  plugin: PluginInstall;
  /** The program's config for a running service, and the change that asks for it stopped. */
  running: [string, string][];
  stopped: [string, string];
}

export function sdkStory(title: string, options: SdkStoryOptions): void {
  describe(title, function () {
    this.timeout(300_000);
    let emulator: Emulator;
    let stack: SdkStack;
    const printed: string[] = [];

    const pulumi = async (...args: string[]) => {
      const result = await stack.ok(...args);
      printed.push(result.stdout, result.stderr);
      return result;
    };
    const resources = async () =>
      (
        JSON.parse((await pulumi("stack", "export")).stdout) as {
          deployment: { resources?: StackResource[] };
        }
      ).deployment.resources ?? [];
    const analytics = async () =>
      (await resources()).find((r) => r.type === TYPE && r.urn.endsWith("::analytics"));
    const commands = () =>
      emulator.requests.filter((r) => r.method === "PATCH" && r.serviceId === SERVICE).map((r) => r.command);

    before(async function () {
      const found = [cliBin(), ...options.requirements()];
      const missing = found.find((item): item is Missing => typeof item !== "string");
      if (missing) {
        console.log(`      skipped: ${missing.missing}`);
        return this.skip();
      }
      emulator = await startEmulator({
        transitions: { starting: 1500, stopping: 1500 },
        rateLimit: { requests: 200, windowMs: 1000 },
        services: [{ organizationId: ORG, id: SERVICE, name: "analytics", state: "stopped" }],
      });
      // The provider's waits scaled down (a 5 s poll becomes 250 ms); the engine hands this to the plugin.
      stack = new SdkStack(found[0] as string, options.example, { DBCLOUD_TIME_SCALE: "0.05" });
      await stack.installPlugin(options.plugin);
      await options.useProgram(stack, found.slice(1) as string[]);
      await pulumi("stack", "init", "dev");
      await pulumi("config", "set", "dbcloud:apiUrl", emulator.url);
      await pulumi("config", "set", "dbcloud:apiKeyId", emulator.keyId);
      // `--` first: a generated secret may begin with "-", which would read as a flag.
      await pulumi("config", "set", "--secret", "--", "dbcloud:apiKeySecret", emulator.keySecret);
      await pulumi("config", "set", "dbcloud:organizationId", ORG);
      await pulumi("config", "set", "dbcloud:rateLimit", "200/1s");
      await pulumi("config", "set", "serviceId", SERVICE);
      for (const [key, value] of options.running) await pulumi("config", "set", key, value);
    });
    after(async () => {
      stack?.close();
      await emulator?.close();
    });

    it(`runs with no node on the CLI's PATH, the plugin one executable (${options.plugin})`, () => {
      assert.equal(stack.onPath("node"), false);
      assert.equal(stack.onPath("pulumi-resource-dbcloud"), false);
      assert.ok(statSync(join(stack.pluginDir, "pulumi-resource-dbcloud")).size > 0);
    });

    it("previews without sending a command", async () => {
      await pulumi("preview");
      assert.deepEqual(commands(), []);
    });

    it("up starts the service; refresh sees it stopped outside Pulumi; up starts it again", async () => {
      const up = await pulumi("up", "--yes", "--skip-preview");
      assert.match(up.stdout, /databaseVersion\s*:\s*"/, "getService's output reached the program");
      assert.equal(emulator.service(SERVICE)?.state, "running");
      const created = await analytics();
      assert.equal(created?.outputs?.observedState, "running");
      assert.equal(created?.outputs?.serviceName, "analytics");
      // The SDK asks for the plugin at its own version, which the plugin reports back.
      const provider = (await resources()).find((r) => r.type === "pulumi:providers:dbcloud");
      assert.equal(provider?.inputs?.version, "0.2.0");

      emulator.setState(SERVICE, "stopped");
      await pulumi("refresh", "--yes", "--skip-preview");
      assert.equal((await analytics())?.outputs?.observedState, "stopped");
      await pulumi("up", "--yes", "--skip-preview");
      assert.equal(emulator.service(SERVICE)?.state, "running");
      assert.deepEqual(commands(), ["start", "start"]);
    });

    it("stops the service when the program asks, and leaves it on destroy", async () => {
      await pulumi("config", "set", ...options.stopped);
      await pulumi("up", "--yes", "--skip-preview");
      assert.equal(emulator.service(SERVICE)?.state, "stopped");
      assert.deepEqual(commands(), ["start", "start", "stop"]);
      const before = emulator.requests.length;
      await pulumi("destroy", "--yes", "--skip-preview");
      const sent = emulator.requests.slice(before).filter((r) => r.method !== "GET");
      assert.deepEqual(sent, [], "onDestroy: leave sends nothing");
      assert.equal(await analytics(), undefined);
    });

    it("keeps the key's secret out of the state and the CLI's output", () => {
      for (const text of [...stack.backendFiles(), ...printed])
        assert.ok(!text.includes(emulator.keySecret), "the secret leaked");
    });
  });
}
