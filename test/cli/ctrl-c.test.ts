import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Emulator } from "../../src/emulator";
import { CliStack, resourceOf, type CliResult } from "./helpers/cliStack";
import { configureProvider, PROVIDER_ENV, requestsOf, STAGING, startCliEmulator } from "./helpers/fixture";
import { ROOT } from "./helpers/toolchain";

/*
 * Ctrl-C through the real CLI: SIGINT to `pulumi up` while the plugin waits out a start makes the
 * engine call the plugin's Cancel and wait for its operations. The wait ends at once, the
 * resource is recorded as the API last showed it, and the next `pulumi up` sends no second start.
 */

const EXAMPLE = readFileSync(join(ROOT, "examples/yaml/Pulumi.yaml"), "utf8");
const TYPE = "dbcloud:index:ServiceRunState";

/** Runs `pulumi up` and sends `signal` to the CLI once the plugin reports the start it sent. */
function upInterruptedAfterStart(stack: CliStack, signal: NodeJS.Signals): Promise<CliResult> {
  return stack.run(["up", "--yes", "--skip-preview"], (cli, output) => {
    const watch = setInterval(() => {
      if (!/sent start/.test(output())) return;
      clearInterval(watch);
      cli.kill(signal);
    }, 50);
    cli.on("close", () => clearInterval(watch));
  });
}

describe("real engine: Ctrl-C while a start is waited out (YAML, the plugin)", function () {
  this.timeout(240_000);
  let emulator: Emulator;
  let stack: CliStack;

  before(async () => {
    emulator = await startCliEmulator(30_000);
    stack = new CliStack({ projectYaml: EXAMPLE, env: PROVIDER_ENV });
    await stack.init();
    await configureProvider(stack, emulator);
    await stack.configSet("serviceId", STAGING);
  });
  after(async () => {
    stack?.close();
    await emulator?.close();
  });

  it("ends before the transition does, recording the service as the API showed it", async () => {
    const up = await upInterruptedAfterStart(stack, "SIGINT");
    assert.notEqual(up.code, 0);
    assert.equal(emulator.service(STAGING)?.state, "starting", "the CLI ended while the start was under way");
    const recorded = resourceOf(await stack.exportStack(), TYPE, "analytics");
    assert.ok(recorded, `the accepted start is recorded:\n${up.stdout}\n${up.stderr}`);
    assert.equal(recorded.outputs?.observedState, "starting");
  });

  it("the next up waits out that start and sends no second one", async () => {
    emulator.setState(STAGING, "starting", { state: "running", afterMs: 2000 }); // the start, nearly done
    await stack.ok(["up", "--yes"]);
    assert.equal(emulator.service(STAGING)?.state, "running");
    assert.equal(requestsOf(emulator, "PATCH", STAGING).length, 1);
  });
});
