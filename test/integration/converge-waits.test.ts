import assert from "node:assert/strict";
import { ApiTimeoutError } from "../../src/api/errors";
import { START_MS, startConvergeBench } from "../helpers/emulatorConverge";
import { convergeError } from "../helpers/scriptedConverge";

/*
 * How the converger waits, against the emulator over HTTP on a virtual clock: when it polls, what it
 * says while waiting, how a warehouse's refusal is waited out and ends, and where the last moment
 * for a poll lies. Request times are the emulator's clock readings, so the test reads exact waits.
 */

describe("converge: how it waits", function () {
  this.timeout(20_000);
  let bench: Awaited<ReturnType<typeof startConvergeBench>>;

  beforeEach(async () => {
    bench = await startConvergeBench({ transitions: { starting: 60_000, stopping: 60_000 } });
  });
  afterEach(async () => bench.emulator.close());

  const seed = (state: string, fields: { dataWarehouseId?: string; isPrimary?: boolean } = {}) =>
    bench.emulator.addService({ organizationId: bench.organizationId, name: "orders", state, ...fields }).id;
  const label = (serviceId: string) => `service "orders" (${serviceId.slice(0, 8)}…)`;
  const times = (method: string) =>
    bench.emulator.requests.filter((r) => r.method === method).map((r) => r.at);

  it("says where it is every progress interval, counted from the start", async () => {
    const serviceId = seed("stopped");
    const { converging, lines } = bench.run(serviceId);
    await converging;
    assert.deepEqual(lines, [
      `${label(serviceId)}: sent start (was stopped); target running`,
      `${label(serviceId)}: starting, target running, 30s elapsed`,
      `${label(serviceId)} is running (60s)`,
    ]);
  });

  it("every answer lost and the command bound spent: it looks at the constant interval, whatever the grace period", async () => {
    const serviceId = seed("stopped");
    // Each attempt reaches the server, whose answer never comes: the client's retries spend the bound.
    bench.emulator.injectFault({ route: "changeState", drop: "before", times: Infinity });
    const tuning = { commandGraceMs: 12_000 };
    const error = await convergeError(bench.run(serviceId, { timeoutMs: 30_000, tuning }).converging);
    assert.equal(error.kind, "timeout");
    assert.equal(bench.statuses("PATCH").length, 3, "the bound");
    const patched = Math.max(...times("PATCH"));
    const polls = times("GET").filter((at) => at > patched);
    const gaps = polls.slice(1).map((at, i) => at - polls[i]);
    assert.ok(gaps.length >= 4, `${gaps.length} gaps`);
    assert.deepEqual(gaps.slice(0, -1), Array(gaps.length - 1).fill(5_000), "a poll every 5 s");
    assert.equal(polls[polls.length - 1], START_MS + 29_000, "the last one a second before the deadline");
  });

  it("a GET shown while the command recorded before may not show yet: said once, looked at until its grace ends", async () => {
    const serviceId = seed("stopped");
    const lastCommand = {
      command: "start" as const,
      atMs: START_MS - 1_000,
      wallMs: Date.now(),
      seen: false,
    };
    const { converging, lines } = bench.run(serviceId, { lastCommand });
    const result = await converging;
    assert.equal(result.service.state, "running");
    const said = lines.filter((l) => l.includes("which may predate the start sent"));
    assert.deepEqual(said, [
      `${label(serviceId)} shows stopped, which may predate the start sent; looking again`,
    ]);
    assert.equal(times("PATCH")[0], START_MS + 29_000, "sent once the grace period of the one before ended");
  });

  it("a primary's stop refused while a secondary runs: sent again each poll, the last look a GET, one line said", async () => {
    const warehouse = "5f0e2a4c-1b3d-4e5f-8a9b-0c1d2e3f4a5b";
    const primary = seed("running", { dataWarehouseId: warehouse, isPrimary: true });
    seed("running", { dataWarehouseId: warehouse, isPrimary: false });
    const { converging, lines } = bench.run(primary, { desired: "stopped", timeoutMs: 20_000 });
    const error = await convergeError(converging);
    assert.equal(error.kind, "timeout");
    assert.equal(error.warehouseId, warehouse);
    assert.equal(error.commandAccepted, false);
    const methods = bench.emulator.requests.map((r) => `${r.method}@${r.at - START_MS}`);
    assert.deepEqual(methods, [
      ...["GET@0", "PATCH@0", "GET@5000", "PATCH@5000", "GET@10000", "PATCH@10000"],
      ...["GET@15000", "PATCH@15000", "GET@19000"],
    ]);
    assert.equal(lines.filter((l) => l.includes("refused for now")).length, 1, lines.join("\n"));
    assert.match(error.message, /; the stop was refused 4 times, last: /);
  });

  it("a warehouse's wait cancelled: no warehouse named (the deadline alone names it), nothing accepted", async () => {
    const warehouse = "6a1f3b5d-2c4e-4f60-9bac-1d2e3f4a5b6c";
    const primary = seed("running", { dataWarehouseId: warehouse, isPrimary: true });
    seed("running", { dataWarehouseId: warehouse, isPrimary: false });
    const controller = new AbortController();
    const onLine = (line: string) => {
      if (line.includes("refused for now")) controller.abort(new Error("the engine asked"));
    };
    const run = bench.run(primary, { desired: "stopped", signal: controller.signal, onLine });
    const error = await convergeError(run.converging);
    assert.equal(error.kind, "cancelled");
    assert.equal(error.warehouseId, undefined);
    assert.equal(error.commandAccepted, false);
  });

  it("a client timeout exactly when no further poll would fit is the converge's timeout", async () => {
    const serviceId = seed("starting");
    // The poll at the deadline less one poll interval is held until the client's attempt gives up.
    const { clock } = bench.time;
    const sleep = clock.sleep;
    clock.sleep = async (ms) => {
      await sleep(ms);
      if (bench.time.now() === START_MS + 55_000)
        bench.emulator.injectFault({ route: "getService", stall: true });
    };
    const run = bench.run(serviceId, { timeoutMs: 60_000, maxAttempts: 1, attemptMs: 50 });
    const error = await convergeError(run.converging);
    assert.equal(error.kind, "timeout");
    assert.ok(error.cause instanceof ApiTimeoutError, String(error.cause));
    assert.equal(bench.time.now(), START_MS + 55_000);
  });
});
