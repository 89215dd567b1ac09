import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { resourceOf, ROOT, type StackExport } from "./helpers/cliStack";
import { cliSuite, requestsOf, STAGING } from "./helpers/fixture";

/*
 * examples/yaml through the real CLI, the real YAML language host and the provider plugin (the
 * npm bin on PATH): the same story as the TypeScript example, then customTimeouts bounding the
 * wait through the plugin.
 */

const EXAMPLE = readFileSync(join(ROOT, "examples/yaml/Pulumi.yaml"), "utf8");
const SHORT_CREATE = EXAMPLE.replace("create: 30m", "create: 3s");
const TYPE = "dbcloud:index:ServiceRunState";

const observed = (exported: StackExport) => resourceOf(exported, TYPE, "analytics")?.outputs?.observedState;

describe("real engine: examples/yaml (YAML, the provider plugin)", function () {
  this.timeout(240_000);
  const cli = cliSuite({ project: { yaml: EXAMPLE }, config: [["serviceId", STAGING]] });
  const pulumi = (...args: string[]) => cli.stack.ok(args);

  it("previews without sending a command", async () => {
    await pulumi("preview");
    assert.deepEqual(requestsOf(cli.emulator, "PATCH"), []);
  });

  it("up starts the service, refresh sees it stopped outside Pulumi, up starts it again", async () => {
    const up = await pulumi("up", "--yes");
    assert.match(up.stdout, /databaseVersion\s*:\s*"/, "the invoke's output reached the program");
    assert.equal(cli.emulator.service(STAGING)?.state, "running");
    assert.equal(observed(await cli.stack.exportStack()), "running");

    cli.emulator.setState(STAGING, "stopped");
    await pulumi("refresh", "--yes");
    assert.equal(observed(await cli.stack.exportStack()), "stopped");
    await pulumi("up", "--yes");
    assert.equal(cli.emulator.service(STAGING)?.state, "running");
    assert.deepEqual(
      requestsOf(cli.emulator, "PATCH", STAGING).map((r) => r.command),
      ["start", "start"],
    );
  });

  it("stops the service when the config says so, and leaves it on destroy", async () => {
    await cli.stack.configSet("desiredState", "stopped");
    await pulumi("up", "--yes");
    assert.equal(cli.emulator.service(STAGING)?.state, "stopped");
    const before = cli.emulator.requests.length;
    await pulumi("destroy", "--yes");
    assert.deepEqual(
      cli.emulator.requests.slice(before).filter((r) => r.method !== "GET"),
      [],
      "onDestroy: leave sends nothing",
    );
  });

  it("keeps the key's secret out of the state, the CLI's output and the plugin's log", () => {
    const secret = cli.emulator.keySecret;
    const places = [
      ...cli.stack.backendFiles(),
      ...cli.stack.printed,
      readFileSync(cli.stack.pluginLog, "utf8"),
    ];
    for (const text of places) assert.ok(!text.includes(secret), "the secret leaked");
  });
});

describe("real engine: customTimeouts bound the plugin's wait (YAML)", function () {
  this.timeout(240_000);
  const cli = cliSuite({
    project: { yaml: SHORT_CREATE },
    transitionMs: 60_000,
    config: [["serviceId", STAGING]],
  });

  it("a create outlasting its timeout fails, is recorded as the API showed it, and the next up sends no second start", async () => {
    assert.notEqual(SHORT_CREATE, EXAMPLE, "the example's create timeout is shortened");
    const up = await cli.stack.run(["up", "--yes"]);
    assert.notEqual(up.code, 0);
    assert.match(up.stdout + up.stderr, /starting/);
    const recorded = resourceOf(await cli.stack.exportStack(), TYPE, "analytics");
    assert.ok(recorded, "the engine recorded the resource whose start was accepted");
    assert.equal(recorded.outputs?.observedState, "starting");
    assert.equal(requestsOf(cli.emulator, "PATCH", STAGING).length, 1);

    // The next up (its update timeout is the example's 30m) waits out the start already under way.
    cli.emulator.setState(STAGING, "starting", { state: "running", afterMs: 2000 }); // the start, nearly done
    await cli.stack.ok(["up", "--yes"]);
    assert.equal(cli.emulator.service(STAGING)?.state, "running");
    assert.equal(requestsOf(cli.emulator, "PATCH", STAGING).length, 1, "no second start");
  });
});
