import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { ApiClient } from "../../src/api/client";
import { ApiTimeoutError, ConflictError } from "../../src/api/errors";
import { converge, DEFAULT_TUNING } from "../../src/provider/converge";
import { startEmulator, type Emulator } from "../../src/emulator";
import { convergeError } from "../helpers/scriptedConverge";
import { virtualClock } from "../helpers/virtualClock";

/*
 * What each answer to the converger's PATCH leads to, against the emulator over HTTP on a virtual
 * clock (the emulator's, the client's and the converger's): a 409 is waited out and the command
 * sent again; a refusal after an attempt that may have applied, or a call that runs out of time
 * with its answer lost, still records the command; a GET's 409 is an API failure like any other.
 */

describe("converge: what each answer to the PATCH leads to", function () {
  this.timeout(20_000);
  let emulator: Emulator;
  let time: ReturnType<typeof virtualClock>;
  const organizationId = randomUUID();

  beforeEach(async () => {
    time = virtualClock();
    emulator = await startEmulator({ now: time.now, transitions: { starting: 20_000, stopping: 20_000 } });
  });
  afterEach(async () => emulator.close());

  const stopped = () => emulator.addService({ organizationId, name: "orders", state: "stopped" }).id;
  const statuses = (method: string) =>
    emulator.requests.filter((r) => r.method === method).map((r) => r.status);

  /** A converge of `serviceId` to running through a real client; `onLine` sees each progress line. */
  function run(
    serviceId: string,
    options: { timeoutMs?: number; signal?: AbortSignal; maxAttempts?: number } = {},
    onLine: (line: string) => void = () => undefined,
  ) {
    const { clock } = time;
    const client = new ApiClient({
      apiUrl: emulator.url,
      keyId: emulator.keyId,
      keySecret: emulator.keySecret,
      rateLimit: false,
      clock,
      random: () => 0,
      retry: { maxAttempts: options.maxAttempts ?? 8 },
    });
    const lines: string[] = [];
    const log = { info: (l: string) => (lines.push(l), onLine(l)), warn: (l: string) => lines.push(l) };
    const request = { organizationId, serviceId, desired: "running" as const, waitForState: true };
    const converging = converge(
      { ...request, timeoutMs: options.timeoutMs ?? 600_000 },
      { client, clock, log, tuning: DEFAULT_TUNING, signal: options.signal },
    );
    return { converging, lines };
  }

  it("a 409: nothing applied, the refusal said, the command sent again at the next look and accepted", async () => {
    const serviceId = stopped();
    emulator.injectFault({ route: "changeState", status: 409, message: "a transition is in progress" });
    const { converging, lines } = run(serviceId);
    const result = await converging;
    assert.equal(result.service.state, "running");
    assert.deepEqual(statuses("PATCH"), [409, 200], "sent again after the refusal");
    assert.deepEqual(result.commands, ["start"], "the refused start is not a command accepted");
    assert.equal(result.lastCommand?.command, "start");
    const refused = lines.findIndex((l) =>
      l.endsWith("start refused for now (a transition is in progress); waiting"),
    );
    const sent = lines.findIndex((l) => /: sent start \(was stopped\); target running$/.test(l));
    assert.ok(refused >= 0 && sent > refused, lines.join("\n"));
  });

  it("a 409 after an attempt that may have applied (a 503 first), then cancelled: the start is recorded as possibly applied", async () => {
    const serviceId = stopped();
    emulator.injectFault({ route: "changeState", status: 503 });
    emulator.injectFault({ route: "changeState", status: 409 });
    const controller = new AbortController();
    // Cancelled as the refusal is reported: before the look that follows it.
    const { converging } = run(serviceId, { signal: controller.signal }, (line) => {
      if (line.includes("refused for now")) controller.abort(new Error("the engine asked"));
    });
    const error = await convergeError(converging);
    assert.deepEqual(statuses("PATCH"), [503, 409]);
    assert.equal(error.kind, "cancelled");
    assert.equal(error.commandAccepted, true, "the 503's attempt may have applied the start");
    assert.equal(error.lastCommand?.command, "start");
    assert.equal(error.lastCommand?.atMs, time.now(), "recorded when its refusal came");
    assert.equal((error.cause as Error).message, "the engine asked");
    assert.match(
      error.message,
      /^Cancelled after 0s waiting for service "orders" \(.{8}…\) to be running after a start whose answer never came: it was stopped when last seen \(the engine asked\)\.$/,
    );
  });

  it("a PATCH answer lost and the call out of time with no poll left: a timeout that records the start", async () => {
    const serviceId = stopped();
    // Applied, then held without an answer until the one attempt gives up at the converge's deadline.
    emulator.injectFault({ route: "changeState", stall: "after" });
    const error = await convergeError(run(serviceId, { timeoutMs: 300, maxAttempts: 1 }).converging);
    assert.deepEqual(statuses("PATCH"), ["stalled"]);
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
    const { converging } = run(serviceId, {}, (line) => {
      if (line.includes(": sent start")) emulator.injectFault({ route: "getService", status: 409 });
    });
    const error = await convergeError(converging);
    assert.deepEqual(statuses("PATCH"), [200]);
    assert.equal(error.kind, "api");
    assert.ok(error.cause instanceof ConflictError, String(error.cause));
    assert.equal(error.commandAccepted, true);
    assert.equal(error.lastCommand?.command, "start");
  });
});
