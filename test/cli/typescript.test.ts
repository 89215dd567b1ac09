import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, type StackExport } from "./helpers/cliStack";
import { ANALYTICS, cliSuite, ENDPOINT, requestsOf } from "./helpers/fixture";

/*
 * examples/basic, the TypeScript program with the dynamic resources, through the real CLI and the
 * real dynamic-provider host: preview acts on nothing, up converges, refresh sees a stop made
 * outside Pulumi, up converges again, destroy deletes the endpoint once; the key's secret stays
 * out of everything the CLI prints or keeps.
 */

const PROJECT = "name: dbcloud-example\nruntime: nodejs\n";

function runState(exported: StackExport) {
  const found = exported.deployment.resources?.find((r) => r.urn.endsWith("::analytics"));
  assert.ok(found, "the stack holds the run state analytics");
  return found;
}

describe("real engine: examples/basic (TypeScript, dynamic resources)", function () {
  this.timeout(240_000);
  const cli = cliSuite({
    project: { yaml: PROJECT },
    program: join(ROOT, "examples/basic/index.ts"),
  });

  before(async () => {
    const service = { name: "analytics", serviceId: ANALYTICS, state: "running" };
    await cli.stack.configSet("services[0]", JSON.stringify(service), ["--path"]);
    await cli.stack.configSet(
      "reversePrivateEndpoint",
      JSON.stringify({ serviceId: ANALYTICS, endpointId: ENDPOINT }),
      ["--path"],
    );
  });

  const pulumi = (...args: string[]) => cli.stack.ok(args);

  it("previews without sending a command or a delete", async () => {
    await pulumi("preview");
    assert.deepEqual(requestsOf(cli.emulator, "PATCH"), []);
    assert.deepEqual(requestsOf(cli.emulator, "DELETE"), []);
  });

  it("up starts the stopped service and records it running", async () => {
    await pulumi("up", "--yes");
    assert.equal(cli.emulator.service(ANALYTICS)?.state, "running");
    assert.deepEqual(
      requestsOf(cli.emulator, "PATCH", ANALYTICS).map((r) => r.command),
      ["start"],
    );
    assert.equal(runState(await cli.stack.exportStack()).outputs?.observedState, "running");
  });

  it("refresh shows a stop made outside Pulumi, and up converges again", async () => {
    cli.emulator.setState(ANALYTICS, "stopped");
    await pulumi("refresh", "--yes");
    assert.equal(runState(await cli.stack.exportStack()).outputs?.observedState, "stopped");
    const preview = await pulumi("preview", "--diff");
    assert.match(preview.stdout, /analytics/);
    await pulumi("up", "--yes");
    assert.equal(cli.emulator.service(ANALYTICS)?.state, "running");
    assert.equal(requestsOf(cli.emulator, "PATCH", ANALYTICS).length, 2, "one more start, no other command");
  });

  it("destroy deletes the reverse private endpoint once", async () => {
    await pulumi("destroy", "--yes");
    assert.equal(cli.emulator.hasEndpoint(ANALYTICS, ENDPOINT), false);
    assert.equal(requestsOf(cli.emulator, "DELETE").length, 1);
  });

  it("keeps the key's secret out of the state and of everything the CLI printed", () => {
    const secret = cli.emulator.keySecret;
    const forms = [
      secret,
      Buffer.from(secret).toString("base64"),
      Buffer.from(`${cli.emulator.keyId}:${secret}`).toString("base64"),
    ];
    const places = [...cli.stack.backendFiles(), ...cli.stack.printed];
    assert.ok(places.length > 5);
    for (const form of forms)
      for (const text of places) assert.ok(!text.includes(form), "a form of the secret leaked");
  });
});
