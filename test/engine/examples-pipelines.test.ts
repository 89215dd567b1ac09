import assert from "node:assert/strict";
import { readRepoFile, ROOT, yaml } from "../helpers/repoFiles";
import type { CapturedResource } from "../../src/engine-driver/capture";
import {
  configSet,
  configSetCommands,
  emptyCliConfig,
  type CliConfig,
} from "../../src/engine-driver/cliConfig";
import { EngineStack } from "../../src/engine-driver/stack";
import { startProviderHost } from "../../src/engine-driver/host";
import { capture, ORG, startRun, stopRun, type Run } from "./exampleRun";

/*
 * examples/pipelines run the way Pulumi runs it (captured under mocks, then the real
 * dynamic-provider host over gRPC) against the emulator: the stack config its pipelines set, the
 * main branch's up, and the scheduled flip of runState.
 */

const read = (path: string) => readRepoFile(path);

describe("engine: examples/pipelines, its stack config and the scheduled flip", function () {
  this.timeout(60_000);
  const PROJECT = "dbcloud-pipelines";
  let run: Run;
  let services: { name: string; serviceId: string }[];
  let stackFile: CliConfig;

  before(async () => {
    const file = yaml.load(read("examples/pipelines/Pulumi.dev.yaml")) as { config: Record<string, unknown> };
    stackFile = emptyCliConfig();
    for (const [key, value] of Object.entries(file.config)) stackFile.values.set(key, value);
    services = file.config[`${PROJECT}:services`] as typeof services;
    assert.equal(file.config["dbcloud:organizationId"], ORG);
    run = await startRun(services.map((s) => ({ id: s.serviceId, name: s.name, state: "stopped" })));
  });
  after(() => stopRun(run));

  /** The environment the pipelines give the program: credentials as DBCLOUD_* variables. */
  function withPipelineEnv<T>(body: () => Promise<T>): Promise<T> {
    const env = {
      DBCLOUD_API_URL: run.emulator.url,
      DBCLOUD_API_KEY_ID: run.emulator.keyId,
      DBCLOUD_API_KEY_SECRET: run.emulator.keySecret,
    };
    const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
    Object.assign(process.env, env);
    return body().finally(() => {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    });
  }

  /** The flip line of a pipeline file, with its variable set as the schedule sets it. */
  function flipArgs(file: string, runState: string): string[] {
    const commands = configSetCommands(read(file).replace(/"\$RUN_STATE"/g, runState));
    assert.equal(commands.length, 1, `${file} flips one configuration value`);
    return commands[0];
  }

  it("the main branch's up starts every service; each schedule's flip stops, then starts them", async () => {
    // The provider host reads credentials from its environment, as in the pipeline.
    await run.host.stop();
    run.host = await startProviderHost({
      cwd: ROOT,
      project: PROJECT,
      env: {
        DBCLOUD_TIME_SCALE: "0.02",
        DBCLOUD_RATE_LIMIT: "100/1s",
        DBCLOUD_API_URL: run.emulator.url,
        DBCLOUD_API_KEY_ID: run.emulator.keyId,
        DBCLOUD_API_KEY_SECRET: run.emulator.keySecret,
      },
    });
    const states = () => services.map((s) => run.emulator.service(s.serviceId)?.state);
    let stack: EngineStack | undefined;
    const deploy = async (cli: CliConfig) => {
      const captured = await withPipelineEnv(() => capture("pipelines", PROJECT, cli));
      stack ??= new EngineStack(run.host, { config: captured.config });
      const result = await stack.up(captured.resources);
      assert.ok(result.ok, JSON.stringify(result.steps));
      return captured.resources;
    };

    const resources: CapturedResource[] = await deploy(stackFile);
    assert.equal(resources.length, services.length);
    assert.deepEqual(states(), ["running", "running"]);

    for (const file of [
      "examples/pipelines/github/dev-schedule.yml",
      "examples/pipelines/gitlab/.gitlab-ci.yml",
    ]) {
      for (const runState of ["stopped", "running"]) {
        const flipped: CliConfig = { values: new Map(stackFile.values), secretKeys: new Set() };
        configSet(flipped, flipArgs(file, runState), PROJECT);
        const before = run.emulator.requests.length;
        await deploy(flipped);
        assert.deepEqual(states(), [runState, runState], `${file}: ${runState}`);
        const commands = run.emulator.requests.slice(before).filter((r) => r.method === "PATCH");
        assert.equal(commands.length, services.length, "one command per service");
      }
    }
  });
});
