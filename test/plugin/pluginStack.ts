import { randomUUID } from "node:crypto";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { startEmulator, type Emulator, type EmulatorOptions } from "../../src/emulator";
import { engineCalls, RUN_STATE, secret, urnOf } from "./engineCalls";
import { binCommand, startFakeEngine, startPlugin, type PluginProcess } from "./pluginProcess";

/*
 * What every plugin test stands on: the emulator, a stand-in engine, and the bin started as the
 * engine starts it and configured against the emulator as a stack's config would configure it.
 */

export type FakeEngine = Awaited<ReturnType<typeof startFakeEngine>>;
export type EngineCalls = ReturnType<typeof engineCalls>;

export interface PluginOptions {
  /** The stack's default organization. */
  organizationId: string;
  /** The stack's `rateLimit`; default "off". */
  rateLimit?: string;
  /** The plugin's environment beyond this process's (DBCLOUD_TIME_SCALE, gRPC's debug variables). */
  env?: NodeJS.ProcessEnv;
}

export interface ConfiguredPlugin {
  plugin: PluginProcess;
  calls: EngineCalls;
  /** Configure's answer. */
  configured: Awaited<ReturnType<EngineCalls["configure"]>>;
  /** The engine's Cancel. */
  cancel(): Promise<unknown>;
}

/** The bin, started against `engine` and configured against `emulator` with its key, the secret wrapped. */
export async function configuredPlugin(
  emulator: Emulator,
  engine: FakeEngine,
  options: PluginOptions,
): Promise<ConfiguredPlugin> {
  const plugin = await startPlugin(binCommand(), { engine: engine.address, env: options.env });
  const calls = engineCalls(plugin);
  try {
    const configured = await calls.configure({
      apiUrl: emulator.url,
      apiKeyId: emulator.keyId,
      apiKeySecret: secret(emulator.keySecret),
      organizationId: options.organizationId,
      rateLimit: options.rateLimit ?? "off",
    });
    return { plugin, calls, configured, cancel: () => plugin.call("cancel", new Empty()) };
  } catch (error) {
    await plugin.stop();
    throw error;
  }
}

export interface PluginStack extends ConfiguredPlugin {
  emulator: Emulator;
  engine: FakeEngine;
}

/**
 * In a `describe`: an emulator, a stand-in engine and one configured plugin, started before its
 * first test and stopped after its last. The fields are set once the suite's `before` has run.
 */
export function pluginStack(options: PluginOptions & { emulator?: EmulatorOptions }): PluginStack {
  const stack = {} as PluginStack;
  before(async function () {
    stack.emulator = await startEmulator(options.emulator);
    stack.engine = await startFakeEngine();
    Object.assign(stack, await configuredPlugin(stack.emulator, stack.engine, options));
  });
  after(async function () {
    await stack.plugin?.stop();
    stack.engine?.stop();
    await stack.emulator?.close();
  });
  return stack;
}

/** A stopped service added to the emulator, and its ServiceRunState's checked inputs asking it to run. */
export async function stoppedService(
  on: { emulator: Emulator; calls: EngineCalls },
  organizationId: string,
  name: string,
) {
  const serviceId = randomUUID();
  on.emulator.addService({ organizationId, id: serviceId, name, state: "stopped" });
  const urn = urnOf(RUN_STATE, name);
  const { inputs } = await on.calls.check(urn, {}, { serviceId, state: "running" });
  return { serviceId, urn, inputs };
}
