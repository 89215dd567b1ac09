import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { resourceOf, ROOT, type CliResult, type CliStack } from "./helpers/cliStack";
import { cliSuite, requestsOf, STAGING } from "./helpers/fixture";

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
  const cli = cliSuite({
    project: { yaml: EXAMPLE },
    transitionMs: 30_000,
    config: [["serviceId", STAGING]],
  });

  it("ends before the transition does, recording the service as the API showed it", async () => {
    const up = await upInterruptedAfterStart(cli.stack, "SIGINT");
    assert.notEqual(up.code, 0);
    assert.equal(
      cli.emulator.service(STAGING)?.state,
      "starting",
      "the CLI ended while the start was under way",
    );
    const recorded = resourceOf(await cli.stack.exportStack(), TYPE, "analytics");
    assert.ok(recorded, `the accepted start is recorded:\n${up.stdout}\n${up.stderr}`);
    assert.equal(recorded.outputs?.observedState, "starting");
  });

  it("the next up waits out that start and sends no second one", async () => {
    cli.emulator.setState(STAGING, "starting", { state: "running", afterMs: 2000 }); // the start, nearly done
    await cli.stack.ok(["up", "--yes"]);
    assert.equal(cli.emulator.service(STAGING)?.state, "running");
    assert.equal(requestsOf(cli.emulator, "PATCH", STAGING).length, 1);
  });
});
