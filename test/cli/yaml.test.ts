import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Emulator } from "../../src/emulator";
import { CliStack, resourceOf, type StackExport } from "./helpers/cliStack";
import { configureProvider, PROVIDER_ENV, requestsOf, STAGING, startCliEmulator } from "./helpers/fixture";
import { ROOT } from "./helpers/toolchain";

/*
 * examples/yaml through the real CLI, the real YAML language host and the provider plugin (the
 * npm bin on PATH): the same story as the TypeScript example, then customTimeouts bounding the
 * wait through the plugin.
 */

const EXAMPLE = readFileSync(join(ROOT, "examples/yaml/Pulumi.yaml"), "utf8");
const TYPE = "dbcloud:index:ServiceRunState";

const observed = (exported: StackExport) => resourceOf(exported, TYPE, "analytics")?.outputs?.observedState;

describe("real engine: examples/yaml (YAML, the provider plugin)", function () {
  this.timeout(240_000);
  let emulator: Emulator;
  let stack: CliStack;
  const printed: string[] = [];
  const pulumi = async (...args: string[]) => {
    const result = await stack.ok(args);
    printed.push(result.stdout, result.stderr);
    return result;
  };

  before(async () => {
    emulator = await startCliEmulator();
    stack = new CliStack({ projectYaml: EXAMPLE, env: PROVIDER_ENV });
    await stack.init();
    await configureProvider(stack, emulator);
    await stack.configSet("serviceId", STAGING);
  });
  after(async () => {
    stack?.close();
    await emulator?.close();
  });

  it("previews without sending a command", async () => {
    await pulumi("preview");
    assert.deepEqual(requestsOf(emulator, "PATCH"), []);
  });

  it("up starts the service, refresh sees it stopped outside Pulumi, up starts it again", async () => {
    const up = await pulumi("up", "--yes");
    assert.match(up.stdout, /databaseVersion\s*:\s*"/, "the invoke's output reached the program");
    assert.equal(emulator.service(STAGING)?.state, "running");
    assert.equal(observed(await stack.exportStack()), "running");

    emulator.setState(STAGING, "stopped");
    await pulumi("refresh", "--yes");
    assert.equal(observed(await stack.exportStack()), "stopped");
    await pulumi("up", "--yes");
    assert.equal(emulator.service(STAGING)?.state, "running");
    assert.deepEqual(
      requestsOf(emulator, "PATCH", STAGING).map((r) => r.command),
      ["start", "start"],
    );
  });

  it("stops the service when the config says so, and leaves it on destroy", async () => {
    await stack.configSet("desiredState", "stopped");
    await pulumi("up", "--yes");
    assert.equal(emulator.service(STAGING)?.state, "stopped");
    const before = emulator.requests.length;
    await pulumi("destroy", "--yes");
    assert.deepEqual(
      emulator.requests.slice(before).filter((r) => r.method !== "GET"),
      [],
      "onDestroy: leave sends nothing",
    );
  });

  it("keeps the key's secret out of the state, the CLI's output and the plugin's log", () => {
    const secret = emulator.keySecret;
    const places = [...stack.backendFiles(), ...printed, readFileSync(stack.pluginLog, "utf8")];
    for (const text of places) assert.ok(!text.includes(secret), "the secret leaked");
  });
});

describe("real engine: customTimeouts bound the plugin's wait (YAML)", function () {
  this.timeout(240_000);
  let emulator: Emulator;
  let stack: CliStack;

  before(async () => {
    emulator = await startCliEmulator(60_000);
    const shortCreate = EXAMPLE.replace("create: 30m", "create: 3s");
    assert.notEqual(shortCreate, EXAMPLE);
    stack = new CliStack({ projectYaml: shortCreate, env: PROVIDER_ENV });
    await stack.init();
    await configureProvider(stack, emulator);
    await stack.configSet("serviceId", STAGING);
  });
  after(async () => {
    stack?.close();
    await emulator?.close();
  });

  it("a create outlasting its timeout fails, is recorded as the API showed it, and the next up sends no second start", async () => {
    const up = await stack.run(["up", "--yes"]);
    assert.notEqual(up.code, 0);
    assert.match(up.stdout + up.stderr, /starting/);
    const recorded = resourceOf(await stack.exportStack(), TYPE, "analytics");
    assert.ok(recorded, "the engine recorded the resource whose start was accepted");
    assert.equal(recorded.outputs?.observedState, "starting");
    assert.equal(requestsOf(emulator, "PATCH", STAGING).length, 1);

    // The next up (its update timeout is the example's 30m) waits out the start already under way.
    emulator.setState(STAGING, "starting", { state: "running", afterMs: 2000 }); // the start, nearly done
    await stack.ok(["up", "--yes"]);
    assert.equal(emulator.service(STAGING)?.state, "running");
    assert.equal(requestsOf(emulator, "PATCH", STAGING).length, 1, "no second start");
  });
});
