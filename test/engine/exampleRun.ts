import assert from "node:assert/strict";
import { join } from "node:path";
import { readRepoFile, ROOT } from "../helpers/repoFiles";
import { startEmulator, type Emulator } from "../../src/emulator";
import { captureProgram } from "../../src/engine-driver/capture";
import {
  configSet,
  configSetCommands,
  emptyCliConfig,
  runtimeConfig,
  type CliConfig,
} from "../../src/engine-driver/cliConfig";
import { startProviderHost, type ProviderHost } from "../../src/engine-driver/host";

/*
 * What running a program example takes: the emulator with the example's services, the real
 * dynamic-provider host, the program captured under mocks with its configuration as the Pulumi
 * CLI stores it, and the documented `pulumi config set` lines that build that configuration.
 */

export const EXAMPLES = join(ROOT, "examples");
export const ORG = "5f0c3a52-8d1e-4b7a-9c63-0e2f7d4a1b90";

export interface Run {
  emulator: Emulator;
  host: ProviderHost;
}

export async function startRun(services: { id: string; name: string; state: string }[]): Promise<Run> {
  const emulator = await startEmulator({
    transitions: { starting: 300, stopping: 300 },
    services: services.map((s) => ({ organizationId: ORG, ...s, reversePrivateEndpointIds: ["rpe-0001"] })),
  });
  const host = await startProviderHost({
    cwd: ROOT,
    project: "examples",
    env: { DBCLOUD_TIME_SCALE: "0.02", DBCLOUD_RATE_LIMIT: "100/1s" },
  });
  return { emulator, host };
}

export async function stopRun(run: Run | undefined): Promise<void> {
  await run?.host.stop();
  await run?.emulator.close();
}

/** The section of the README that starts at `heading`, up to the next heading of that level. */
export function readmeSection(heading: string): string {
  const readme = readRepoFile("README.md");
  const start = readme.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `README has ${heading}`);
  const level = heading.split(" ")[0];
  const next = readme.indexOf(`\n${level} `, start + heading.length + 2);
  return readme.slice(start, next < 0 ? undefined : next);
}

/** Runs documented `pulumi config set` lines, placeholders filled in, into a CLI config. */
export function cliConfigFrom(text: string, project: string, fill: (line: string) => string): CliConfig {
  const config = emptyCliConfig();
  const commands = configSetCommands(fill(text));
  assert.ok(commands.length > 0, "the text shows pulumi config set commands");
  for (const args of commands) configSet(config, args, project);
  return config;
}

export async function capture(program: string, project: string, cli: CliConfig, preview = false) {
  const { config, secretKeys } = runtimeConfig(cli);
  const resources = await captureProgram(join(EXAMPLES, program, "index.ts"), {
    project,
    stack: "dev",
    config,
    secretKeys,
    preview,
    freshUnder: join(EXAMPLES, program),
  });
  return { resources, config, secretKeys, exports: require(join(EXAMPLES, program, "index.ts")) };
}
