import assert from "node:assert/strict";
import { readRepoFile } from "../helpers/repoFiles";
import {
  configSet,
  configSetCommands,
  emptyCliConfig,
  type CliConfig,
} from "../../src/engine-driver/cliConfig";
import { EngineStack } from "../../src/engine-driver/stack";
import { capture, cliConfigFrom, ORG, readmeSection, startRun, stopRun, type Run } from "./exampleRun";

/*
 * The program examples basic and ephemeral, run the way Pulumi runs them (captured under mocks,
 * then the real dynamic-provider host over gRPC) against the emulator, with their configuration
 * shaped exactly as the Pulumi CLI stores it for the commands their documentation shows.
 */

const read = (path: string) => readRepoFile(path);

describe("engine: examples/basic with configuration as the CLI stores it", function () {
  this.timeout(60_000);
  const SERVICE = "6a0f8e21-3b4c-4d5e-8f90-a1b2c3d4e5f6";
  let run: Run;

  before(async () => {
    run = await startRun([{ id: SERVICE, name: "analytics", state: "stopped" }]);
  });
  after(() => stopRun(run));

  const fill = (text: string) =>
    text
      .replace(/https?:\/\/(127\.0\.0\.1:8787|api\.example\.com)/g, run.emulator.url)
      .replace(/<key id[^>]*>/g, run.emulator.keyId)
      .replace(/<key secret>/g, run.emulator.keySecret)
      .replace(/<organization id>/g, ORG)
      .replace(/^(.*organizationId.*)<uuid>/gm, `$1${ORG}`)
      .replace(/<uuid>/g, SERVICE)
      .replace(/<id>/g, "rpe-0001");

  async function upAndDestroy(cli: CliConfig, expectEndpoint: boolean): Promise<void> {
    const { resources, config, secretKeys } = await capture("basic", "dbcloud-example", cli);
    const stack = new EngineStack(run.host, { config, secretKeys });
    const result = await stack.up(resources);
    assert.ok(result.ok, JSON.stringify(result.steps));
    const names = stack
      .state()
      .map((entry) => entry.name)
      .sort();
    assert.deepEqual(names, expectEndpoint ? ["analytics", "pipes-endpoint"] : ["analytics"]);
    assert.equal(stack.state().find((e) => e.name === "analytics")!.outputs.observedState, "running");
    assert.equal(run.emulator.service(SERVICE)?.state, "running");
    // Destroy deletes the endpoint it adopted; put it back for the next scenario.
    assert.ok((await stack.destroy()).ok);
    if (expectEndpoint) run.emulator.addEndpoint(SERVICE, "rpe-0001");
    run.emulator.setState(SERVICE, "stopped");
  }

  it("the README's CLI setup: services[0] set with --path as JSON text (stored as a string)", async () => {
    const section = readmeSection("## With the Pulumi CLI");
    const cli = cliConfigFrom(section.slice(0, section.indexOf("field by field")), "dbcloud-example", fill);
    assert.deepEqual(cli.values.get("dbcloud-example:services"), [
      JSON.stringify({ name: "analytics", serviceId: SERVICE, state: "running" }),
    ]);
    assert.deepEqual([...cli.secretKeys], ["dbcloud:apiKeySecret"]);
    await upAndDestroy(cli, false);
  });

  it("the README's per-field form: --path 'services[0].name' and so on", async () => {
    const section = readmeSection("## With the Pulumi CLI");
    const perField = section.slice(section.indexOf("field by field"));
    const base = cliConfigFrom(section.slice(0, section.indexOf("field by field")), "dbcloud-example", fill);
    base.values.delete("dbcloud-example:services");
    for (const args of configSetCommands(fill(perField))) configSet(base, args, "dbcloud-example");
    assert.deepEqual(base.values.get("dbcloud-example:services"), [
      { name: "analytics", serviceId: SERVICE, state: "running", timeoutSeconds: 1800 },
    ]);
    await upAndDestroy(base, false);
  });

  it("the commands at the top of examples/basic/index.ts, the endpoint as JSON text included", async () => {
    const cli = cliConfigFrom(read("examples/basic/index.ts").split("*/")[0], "dbcloud-example", fill);
    assert.equal(typeof cli.values.get("dbcloud-example:reversePrivateEndpoint"), "string");
    await upAndDestroy(cli, true);
  });

  it("a malformed JSON entry is reported with its config key", async () => {
    const cli = emptyCliConfig();
    configSet(cli, ["dbcloud:organizationId", ORG], "dbcloud-example");
    configSet(cli, ["--path", "services[0]", "{name: analytics}"], "dbcloud-example");
    await assert.rejects(
      capture("basic", "dbcloud-example", cli),
      /dbcloud-example:services\[0\] must be an object or the JSON text of one/,
    );
  });
});

describe("engine: examples/ephemeral, onDestroy stop and getServiceOutput", function () {
  this.timeout(60_000);
  const PROJECT = "dbcloud-ephemeral";
  const SERVICE = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b61";
  let run: Run;
  let cli: CliConfig;

  before(async () => {
    run = await startRun([{ id: SERVICE, name: "preview-42", state: "stopped" }]);
    // The commands at the top of the example, placeholders filled in.
    cli = cliConfigFrom(read("examples/ephemeral/index.ts").split("*/")[0], PROJECT, (text) =>
      text.replace(/^(.*organizationId.*)<uuid>/gm, `$1${ORG}`).replace(/<uuid>/g, SERVICE),
    );
    configSet(cli, ["dbcloud:apiUrl", run.emulator.url], PROJECT);
    configSet(cli, ["dbcloud:apiKeyId", run.emulator.keyId], PROJECT);
    configSet(cli, ["--secret", "dbcloud:apiKeySecret", run.emulator.keySecret], PROJECT);
  });
  after(() => stopRun(run));

  it("preview reads the service's endpoints; up starts it; a failed stop on destroy keeps it; destroy again stops it with one command", async () => {
    const previewed = await capture("ephemeral", PROJECT, cli, true);
    const endpoints = await new Promise<string[]>((resolve) => previewed.exports.endpoints.apply(resolve));
    assert.deepEqual(
      endpoints,
      (run.emulator.service(SERVICE)!.endpoints as { protocol: string; host: string; port: number }[]).map(
        (e) => `${e.protocol}://${e.host}:${e.port}`,
      ),
    );
    assert.equal(await new Promise((resolve) => previewed.exports.serviceName.apply(resolve)), "preview-42");

    const { resources, config, secretKeys, exports } = await capture("ephemeral", PROJECT, cli);
    // The program's read runs after the capture returns: it ends here, while the emulator is up.
    await new Promise((resolve) => exports.serviceName.apply(resolve));
    assert.equal(resources[0].inputs.onDestroy, "stop");
    assert.equal(resources[0].inputs.deleteTimeoutSeconds, 900, "customTimeouts.delete: 15m");
    const stack = new EngineStack(run.host, { config, secretKeys });
    assert.ok((await stack.up(resources)).ok);
    assert.equal(run.emulator.service(SERVICE)?.state, "running");

    // A 403, not a 400: a warehouse primary's (any service's, by default) 4xx refusal is waited out.
    run.emulator.injectFault({ route: "changeState", status: 403, times: 1 });
    const failed = await stack.destroy();
    assert.equal(failed.ok, false);
    assert.match(failed.steps[0].error!, /403.*the resource stays in the stack/s);
    assert.equal(stack.state().length, 1, "the resource is still in the stack");
    assert.equal(run.emulator.service(SERVICE)?.state, "running");

    const before = run.emulator.requests.length;
    const destroyed = await stack.destroy();
    assert.ok(destroyed.ok, JSON.stringify(destroyed.steps));
    assert.equal(stack.state().length, 0);
    assert.equal(run.emulator.service(SERVICE)?.state, "stopped");
    assert.deepEqual(
      run.emulator.requests
        .slice(before)
        .filter((r) => r.method === "PATCH")
        .map((r) => `${r.command} ${r.status}`),
      ["stop 200"],
    );
    assert.ok(run.host.stdout.some((line) => /"preview-42".*: stopped on destroy/.test(line)));
    const everything = [JSON.stringify(resources), ...run.host.stdout, ...run.host.stderr].join("\n");
    assert.ok(!everything.includes(run.emulator.keySecret), "the key secret is captured nowhere");
  });
});
