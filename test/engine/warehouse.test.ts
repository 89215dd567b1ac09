import assert from "node:assert/strict";
import { join } from "node:path";
import { readRepoFile, ROOT, yaml } from "../helpers/repoFiles";
import { startEmulator, type Emulator, type RequestLogEntry } from "../../src/emulator";
import { ServiceRunState } from "../../src";
import { captureProgram } from "../../src/engine-driver/capture";
import {
  configSet,
  configSetCommands,
  emptyCliConfig,
  runtimeConfig,
  type CliConfig,
} from "../../src/engine-driver/cliConfig";
import { EngineStack } from "../../src/engine-driver/stack";
import { startProviderHost, type ProviderHost } from "../../src/engine-driver/host";
import { providerConfig } from "../helpers/providerConfig";

/*
 * examples/warehouse through the real provider host: a primary and two secondaries declared in
 * one run state, updated all at once as the engine does, converge in one `pulumi up` whichever
 * order the service needs; and a primary whose secondaries are outside the stack and keep
 * running fails at its deadline, saying why, with the resource recorded.
 */

const PROJECT = "dbcloud-warehouse";
const read = (path: string) => readRepoFile(path);

interface Entry {
  name: string;
  serviceId: string;
}
interface StackFile {
  config: Record<string, unknown> & { "dbcloud:organizationId": string };
}

describe("engine: examples/warehouse, a primary and two secondaries in one stack", function () {
  this.timeout(60_000);
  const file = yaml.load(read("examples/warehouse/Pulumi.dev.yaml")) as StackFile;
  const ORG = file.config["dbcloud:organizationId"];
  const { primary, secondaries } = file.config[`${PROJECT}:warehouse`] as {
    primary: Entry;
    secondaries: Entry[];
  };
  const WAREHOUSE = "0c9b8a7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d";
  let emulator: Emulator;
  let host: ProviderHost;

  before(async () => {
    emulator = await startEmulator({
      transitions: { starting: 1_000, stopping: 1_000 },
      rateLimit: { requests: 10, windowMs: 1_000 },
      services: [primary, ...secondaries].map((service) => ({
        organizationId: ORG,
        id: service.serviceId,
        name: service.name,
        state: "running",
        dataWarehouseId: WAREHOUSE,
        isPrimary: service === primary,
      })),
    });
    host = await startProviderHost({
      cwd: ROOT,
      project: PROJECT,
      env: {
        DBCLOUD_TIME_SCALE: "0.02",
        DBCLOUD_RATE_LIMIT: "10/1s",
        DBCLOUD_API_URL: emulator.url,
        DBCLOUD_API_KEY_ID: emulator.keyId,
        DBCLOUD_API_KEY_SECRET: emulator.keySecret,
      },
    });
  });
  after(async () => {
    await host?.stop();
    await emulator?.close();
  });

  const accepted = (entries: RequestLogEntry[], serviceId: string) =>
    entries.findIndex((r) => r.serviceId === serviceId && r.method === "PATCH" && r.status === 200);
  const refusals = (entries: RequestLogEntry[], serviceId: string) =>
    entries.filter((r) => r.serviceId === serviceId && r.warehouseRefusal !== undefined).length;

  it("the schedule's flip stops all three in one up (secondaries first), then starts them in one up", async () => {
    const cli: CliConfig = emptyCliConfig();
    for (const [key, value] of Object.entries(file.config)) cli.values.set(key, value);
    const stack = new EngineStack(host, { config: runtimeConfig(cli).config });
    const deploy = async (runState: string) => {
      // The pipelines' schedule, run from examples/warehouse: its one `pulumi config set` line.
      const flip = read("examples/pipelines/github/dev-schedule.yml").replace(/"\$RUN_STATE"/g, runState);
      for (const args of configSetCommands(flip)) configSet(cli, args, PROJECT);
      const resources = await captureProgram(join(ROOT, "examples", "warehouse", "index.ts"), {
        project: PROJECT,
        stack: "dev",
        config: runtimeConfig(cli).config,
        secretKeys: [],
        freshUnder: join(ROOT, "examples", "warehouse"),
      });
      assert.equal(resources.length, 3);
      const from = emulator.requests.length;
      const result = await stack.up(resources);
      assert.ok(result.ok, JSON.stringify(result.steps));
      for (const service of [primary, ...secondaries])
        assert.equal(emulator.service(service.serviceId)?.state, runState, service.name);
      return emulator.requests.slice(from);
    };

    assert.deepEqual(
      (await deploy("running")).filter((r) => r.method === "PATCH"),
      [],
      "the first up finds them running",
    );

    const stopping = await deploy("stopped");
    const primaryStop = accepted(stopping, primary.serviceId);
    for (const secondary of secondaries) {
      const stop = accepted(stopping, secondary.serviceId);
      assert.ok(stop >= 0 && stop < primaryStop, `${secondary.name}'s stop is accepted before the primary's`);
    }
    assert.ok(refusals(stopping, primary.serviceId) > 0, "the primary's stop came first and was refused");

    // Whether a secondary may start while its primary is stopped is not documented: refuse it here,
    // so that the primary's start is accepted first whichever order the requests come in.
    emulator.setWarehouseRules({ secondaryStart: { status: 400, message: "primary is stopped" } });
    const starting = await deploy("running");
    const primaryStart = accepted(starting, primary.serviceId);
    for (const secondary of secondaries) assert.ok(accepted(starting, secondary.serviceId) > primaryStart);
    emulator.setWarehouseRules({ secondaryStart: false });
    assert.deepEqual(
      emulator.requests.filter((r) => r.status === 429),
      [],
      "no 429: the waiting went through the rate budget",
    );
  });

  it("a primary whose secondaries are outside the stack and keep running fails at its deadline, recorded", async () => {
    for (const service of [primary, ...secondaries]) emulator.setState(service.serviceId, "running");
    const config = {
      config: providerConfig(emulator, { organizationId: ORG, rateLimit: "10/1s" }),
      secretKeys: ["dbcloud:apiKeySecret"],
    };
    const resources = await captureProgram(
      () => {
        new ServiceRunState("warehouse-primary", {
          serviceId: primary.serviceId,
          state: "stopped",
          timeoutSeconds: 1,
        });
      },
      { project: "engine-test", stack: "test", ...config },
    );
    const stack = new EngineStack(host, config);
    const result = await stack.up(resources);
    assert.equal(result.ok, false);
    const error = result.steps[0].error!;
    assert.match(
      error,
      new RegExp(`primary of warehouse ${WAREHOUSE}, whose secondary services must be stopped first`),
    );
    // Every stop was refused, so nothing was applied; but a re-send still in flight at the deadline
    // loses its answer, and then the stop may have been applied as far as the provider can know.
    // Either way it was never accepted.
    assert.match(
      error,
      /in the same stack or by hand.*(Nothing was changed|The command may have been applied): the resource is recorded/s,
    );
    assert.doesNotMatch(error, /accepted/);
    const recorded = stack.state().find((entry) => entry.name === "warehouse-primary");
    assert.ok(recorded?.initErrors?.length, "the resource is recorded despite the failure");
    assert.equal(recorded.outputs.observedState, "running");
    assert.equal(emulator.service(primary.serviceId)?.state, "running");
  });
});
