import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { startEmulator, type Emulator } from "../../src/emulator";
import { RUN_STATE, urnOf } from "./engineCalls";
import { startFakeEngine } from "./pluginProcess";
import { configuredPlugin } from "./pluginStack";

/*
 * gRPC's debug variables, as people set them to debug a provider: the plugin still prints its
 * port as stdout's only line, a Create still succeeds, its progress still reaches the engine's
 * log, and gRPC's own trace goes to stderr and never into the engine's log (sending a log line is
 * itself a gRPC call: routed there, each trace line would make more).
 */

/** A line of gRPC's trace: `D <iso time> | v<version> <pid> | <tracer> | <text>`. */
const GRPC_TRACE_LINE = /^[EID] \d{4}-\d\d-\d\dT[\d:.]+Z \| v[\d.]+ \d+ \| /;

const SETTINGS: Record<string, string>[] = [
  { GRPC_TRACE: "all", GRPC_VERBOSITY: "DEBUG" },
  { GRPC_TRACE: "channel", GRPC_VERBOSITY: "DEBUG" },
  { GRPC_NODE_TRACE: "all", GRPC_NODE_VERBOSITY: "DEBUG" },
];

describe("plugin: gRPC's debug variables", function () {
  let emulator: Emulator;

  before(async function () {
    emulator = await startEmulator({ transitions: { starting: 200, stopping: 200 } });
  });

  after(async function () {
    await emulator?.close();
  });

  for (const env of SETTINGS) {
    const shown = Object.entries(env)
      .map(([name, value]) => `${name}=${value}`)
      .join(" ");
    it(`${shown}: the port alone on stdout, a Create that succeeds, no trace in the engine's log`, async function () {
      const engine = await startFakeEngine();
      const organizationId = randomUUID();
      const { plugin, calls } = await configuredPlugin(emulator, engine, {
        organizationId,
        env: { DBCLOUD_TIME_SCALE: "0.02", ...env },
      });
      try {
        const serviceId = randomUUID();
        emulator.addService({ organizationId, id: serviceId, name: "traced", state: "stopped" });
        const urn = urnOf(RUN_STATE, "traced");
        const { inputs, failures } = await calls.check(urn, {}, { serviceId, state: "running" });
        assert.deepEqual(failures, []);
        const created = await calls.create(urn, inputs, 60);
        assert.equal(created.id, serviceId);
        assert.equal(created.properties.observedState, "running");
        assert.equal(emulator.service(serviceId)?.state, "running");
        assert.ok(
          engine.lines.some((line) => line.urn === urn && line.message.includes("sent start")),
          "progress in the engine's log",
        );
        const traced = engine.lines.filter((line) => GRPC_TRACE_LINE.test(line.message));
        assert.deepEqual(traced, [], "gRPC's trace never goes to the engine's log");
      } finally {
        await plugin.stop();
        engine.stop();
      }
      assert.deepEqual(plugin.stdout, [], "stdout holds the port and nothing else");
      if (env.GRPC_VERBOSITY || env.GRPC_NODE_VERBOSITY)
        assert.ok(
          plugin.stderr.some((line) => GRPC_TRACE_LINE.test(line)),
          "gRPC's trace goes to stderr",
        );
    });
  }
});
