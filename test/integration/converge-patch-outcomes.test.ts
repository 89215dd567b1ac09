import assert from "node:assert/strict";
import { ApiTimeoutError, ConflictError } from "../../src/api/errors";
import { startConvergeBench } from "../helpers/emulatorConverge";
import { convergeError } from "../helpers/scriptedConverge";

/*
 * What each answer to the converger's PATCH leads to, against the emulator over HTTP on a virtual
 * clock: accepted, the outcome without waiting; a 409, waited out and sent again; a refusal after an
 * attempt that may have applied, a call out of time with its answer lost, or a cancel while the
 * server holds the PATCH, each still recording the command; a GET's 409 is an API failure.
 */

describe("converge: what each answer to the PATCH leads to", function () {
  this.timeout(20_000);
  let bench: Awaited<ReturnType<typeof startConvergeBench>>;

  beforeEach(async () => {
    bench = await startConvergeBench({ transitions: { starting: 20_000, stopping: 20_000 } });
  });
  afterEach(async () => bench.emulator.close());

  const stopped = () =>
    bench.emulator.addService({ organizationId: bench.organizationId, name: "orders", state: "stopped" }).id;
  const label = (serviceId: string) => `service "orders" (${serviceId.slice(0, 8)}…)`;

  it("without waitForState, the accepted PATCH's answer is the outcome, whatever state it shows", async () => {
    const serviceId = stopped();
    bench.emulator.injectFault({ route: "changeState", ignoreCommand: true });
    const result = await bench.run(serviceId, { waitForState: false }).converging;
    assert.deepEqual(
      bench.emulator.requests.map((r) => r.method),
      ["GET", "PATCH"],
    );
    assert.equal(result.service.state, "stopped", "what the PATCH answer showed");
    assert.deepEqual(result.commands, ["start"]);
  });

  it("a 409: nothing applied, the refusal said, the command sent again at the next look and accepted", async () => {
    const serviceId = stopped();
    bench.emulator.injectFault({ route: "changeState", status: 409, message: "a transition is in progress" });
    const { converging, lines } = bench.run(serviceId);
    const result = await converging;
    assert.equal(result.service.state, "running");
    assert.deepEqual(bench.statuses("PATCH"), [409, 200], "sent again after the refusal");
    assert.deepEqual(result.commands, ["start"], "the refused start is not a command accepted");
    assert.equal(result.lastCommand?.command, "start");
    assert.deepEqual(lines, [
      `${label(serviceId)}: start refused for now (a transition is in progress); waiting`,
      `${label(serviceId)}: sent start (was stopped); target running`,
      `${label(serviceId)} is running (25s)`,
    ]);
  });

  it("a 409 after an attempt that may have applied (a 503 first), then cancelled: the start is recorded as possibly applied", async () => {
    const serviceId = stopped();
    bench.emulator.injectFault({ route: "changeState", status: 503 });
    bench.emulator.injectFault({ route: "changeState", status: 409 });
    const controller = new AbortController();
    // Cancelled as the refusal is reported: before the look that follows it.
    const onLine = (line: string) => {
      if (line.includes("refused for now")) controller.abort(new Error("the engine asked"));
    };
    const error = await convergeError(bench.run(serviceId, { signal: controller.signal, onLine }).converging);
    assert.deepEqual(bench.statuses("PATCH"), [503, 409]);
    assert.equal(error.kind, "cancelled");
    assert.equal(error.commandAccepted, true, "the 503's attempt may have applied the start");
    assert.equal(error.lastCommand?.command, "start");
    assert.equal(error.lastCommand?.atMs, bench.time.now(), "recorded when its refusal came");
    assert.equal((error.cause as Error).message, "the engine asked", "the poll's wait ended by the signal");
    assert.equal(
      error.message,
      `Cancelled after 0s waiting for ${label(serviceId)} to be running after a start whose answer ` +
        "never came: it was stopped when last seen (the engine asked).",
    );
  });

  it("refusals after attempts that may have applied, the bound spent, nothing moved: a timeout, not a fight", async () => {
    const serviceId = stopped();
    for (let i = 0; i < 3; i++) {
      bench.emulator.injectFault({ route: "changeState", status: 503 });
      bench.emulator.injectFault({ route: "changeState", status: 409 });
    }
    const error = await convergeError(bench.run(serviceId, { timeoutMs: 60_000 }).converging);
    assert.deepEqual(bench.statuses("PATCH"), [503, 409, 503, 409, 503], "sent until the bound was spent");
    assert.equal(bench.emulator.service(serviceId)?.state, "stopped", "none of them applied");
    assert.equal(error.kind, "timeout", error.message);
    assert.equal(error.commandAccepted, true, "each 503's attempt may have applied the start");
    assert.doesNotMatch(error.message, /went back|something else/);
  });

  it("a PATCH cancelled while the server holds it open: a cancel, not an answer lost", async () => {
    const serviceId = stopped();
    bench.emulator.injectFault({ route: "changeState", stall: "after" });
    const controller = new AbortController();
    const { converging, lines } = bench.run(serviceId, { signal: controller.signal });
    await bench.held("PATCH");
    controller.abort(new Error("the engine asked"));
    const error = await convergeError(converging);
    assert.equal(error.kind, "cancelled");
    assert.equal(error.commandAccepted, true);
    assert.equal(error.lastCommand?.command, "start");
    assert.match(
      error.message,
      /to be running after a start whose answer never came: it was stopped when last seen/,
    );
    assert.deepEqual(lines, [], "no answer reported lost");
  });

  it("cancelled while the first GET is held: no service seen, nothing sent", async () => {
    const serviceId = stopped();
    bench.emulator.injectFault({ route: "getService", stall: true });
    const controller = new AbortController();
    const { converging } = bench.run(serviceId, { signal: controller.signal });
    await bench.held("GET");
    controller.abort(new Error("the engine asked"));
    const error = await convergeError(converging);
    assert.equal(error.kind, "cancelled");
    assert.equal(error.commandAccepted, false);
    assert.equal(error.service, undefined);
    assert.equal(
      error.message,
      `Cancelled after 0s waiting for service ${serviceId.slice(0, 8)}… to be running (the engine asked).`,
    );
  });

  it("cancelled while waiting on a service that shows no state: said so", async () => {
    const serviceId = bench.emulator.addService({
      organizationId: bench.organizationId,
      name: "orders",
      state: "running",
      fields: { state: null },
    }).id;
    const controller = new AbortController();
    // Cancelled as the wait for the first poll begins.
    const { clock } = bench.time;
    const sleep = clock.sleep;
    clock.sleep = async (ms) => (controller.abort(new Error("the engine asked")), sleep(ms));
    const error = await convergeError(bench.run(serviceId, { signal: controller.signal }).converging);
    assert.equal(error.kind, "cancelled");
    assert.match(
      error.message,
      /to be running: it was in no reported state when last seen \(the engine asked\)\.$/,
    );
  });

  it("a PATCH answer lost and the call out of time with no poll left: a timeout that records the start", async () => {
    const serviceId = stopped();
    // Applied, then held without an answer until the one attempt gives up at the converge's deadline.
    bench.emulator.injectFault({ route: "changeState", stall: "after" });
    const error = await convergeError(bench.run(serviceId, { timeoutMs: 300, maxAttempts: 1 }).converging);
    assert.deepEqual(bench.statuses("PATCH"), ["stalled"]);
    assert.equal(error.kind, "timeout");
    assert.ok(error.cause instanceof ApiTimeoutError, String(error.cause));
    assert.equal(error.commandAccepted, true);
    assert.equal(error.lastCommand?.command, "start");
    assert.equal(error.service?.state, "stopped", "what the GET before the PATCH showed");
    assert.match(
      error.message,
      /^Timed out after 0s waiting for service "orders" .* to be running: it is stopped\./,
    );
  });

  it("a 409 to a poll's GET is an API failure, recording the start accepted before it", async () => {
    const serviceId = stopped();
    const onLine = (line: string) => {
      if (line.includes(": sent start")) bench.emulator.injectFault({ route: "getService", status: 409 });
    };
    const error = await convergeError(bench.run(serviceId, { onLine }).converging);
    assert.deepEqual(bench.statuses("PATCH"), [200]);
    assert.equal(error.kind, "api");
    assert.ok(error.cause instanceof ConflictError, String(error.cause));
    assert.equal(error.commandAccepted, true);
    assert.equal(error.lastCommand?.command, "start");
  });
});
