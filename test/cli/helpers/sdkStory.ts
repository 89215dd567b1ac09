import assert from "node:assert/strict";
import { statSync } from "node:fs";
import { join } from "node:path";
import type { Emulator } from "../../../src/emulator";
import { cliBin, type CliStack, type Missing, type PluginWay, type StackExport } from "./cliStack";
import { ANALYTICS as SERVICE, configuredStack, startCliEmulator } from "./fixture";

/*
 * The story every SDK's program tells under the real CLI, against the emulator: preview sends
 * nothing, up starts the service, refresh sees it stopped outside Pulumi, up starts it again, the
 * program's stop stops it, destroy leaves it; the key's secret nowhere.
 */

const TYPE = "dbcloud:index:ServiceRunState";

export interface SdkStoryOptions {
  /** The folder under examples/. */
  example: string;
  /** What else the language needs, checked before anything runs: a string says what is missing. */
  requirements: () => (string | Missing)[];
  /** Installs the language's SDK and routes the stack's program commands. */
  useProgram: (stack: CliStack, requirements: string[]) => Promise<void> | void;
  /** How the engine gets the plugin (both ways docs/plugin.md gives). */
  plugin: Exclude<PluginWay, "npm bin on PATH">;
  /** The program's config for a running service, and the change that asks for it stopped. */
  running: [string, string][];
  stopped: [string, string];
}

export function sdkStory(title: string, options: SdkStoryOptions): void {
  describe(title, function () {
    this.timeout(300_000);
    let emulator: Emulator;
    let stack: CliStack;

    const pulumi = (...args: string[]) => stack.ok(args);
    const resources = async () =>
      (JSON.parse((await pulumi("stack", "export")).stdout) as StackExport).deployment.resources ?? [];
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
      emulator = await startCliEmulator();
      stack = await configuredStack(emulator, {
        project: { example: options.example },
        plugin: options.plugin,
        config: [["serviceId", SERVICE], ...options.running],
      });
      await options.useProgram(stack, found.slice(1) as string[]);
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
      for (const text of [...stack.backendFiles(), ...stack.printed])
        assert.ok(!text.includes(emulator.keySecret), "the secret leaked");
    });
  });
}
