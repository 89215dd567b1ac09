// Injected faults over real HTTP: what the client sees, and whether the operation was applied:
// statuses, delays, dropped connections, malformed answers, lost commands, and how faults are
// matched, ordered and checked.
import assert from "node:assert/strict";
import type { Emulator } from "../../src/emulator";
import { UUID_V4 } from "../helpers/emulatorHttp";
import { faultEmulatorEachTest } from "../helpers/faultEmulator";

describe("emulator faults", () => {
  const rig = faultEmulatorEachTest();
  const { serviceId, servicePath, endpointPath, start, call, stop, get } = rig;
  let emulator: Emulator;
  beforeEach(() => {
    emulator = rig.emulator;
  });

  it("status: answers the error envelope N times without applying, then behaves normally", async () => {
    emulator.injectFault({ route: "changeState", status: 503, times: 2 });
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const reply = await stop();
      assert.equal(reply.status, 503);
      const body = JSON.parse(reply.text);
      assert.equal(body.status, 503);
      assert.equal(typeof body.error, "string");
      assert.match(body.requestId, UUID_V4);
      assert.equal(reply.headers.get("x-request-id"), body.requestId);
      assert.equal(emulator.service(serviceId)?.state, "running");
    }
    // Other routes were never affected.
    assert.equal((await get()).status, 200);
    assert.equal((await stop()).status, 200);
    assert.equal(emulator.service(serviceId)?.state, "stopping");
    assert.deepEqual(
      emulator.requests.map((entry) => [entry.status, entry.fault]),
      [
        [503, "status 503"],
        [503, "status 503"],
        [200, undefined],
        [200, undefined],
      ],
    );
  });

  it("status 429 carries Retry-After and X-RateLimit-Reset from retryAfterSeconds", async () => {
    emulator.injectFault({ status: 429, retryAfterSeconds: 7 });
    const reply = await get();
    assert.equal(reply.status, 429);
    assert.equal(JSON.parse(reply.text).error, "TOO_MANY_REQUESTS");
    assert.equal(reply.headers.get("retry-after"), "7");
    assert.equal(reply.headers.get("x-ratelimit-reset"), "7");
    assert.equal((await get()).status, 200);
  });

  it("matches on method and route, and times Infinity lasts until clearFaults", async () => {
    emulator.injectFault({ method: "DELETE", status: 500, times: Infinity });
    for (let attempt = 0; attempt < 3; attempt += 1)
      assert.equal((await call("DELETE", endpointPath)).status, 500);
    assert.equal((await get()).status, 200);
    assert.equal(emulator.hasEndpoint(serviceId, "rpe-1"), true);
    emulator.clearFaults();
    assert.equal((await call("DELETE", endpointPath)).status, 200);
  });

  it("headers: adds response headers to an otherwise normal answer", async () => {
    emulator.injectFault({ route: "getService", headers: { "X-Debug": "yes" } });
    const reply = await get();
    assert.equal(reply.status, 200);
    assert.equal(reply.headers.get("x-debug"), "yes");
  });

  it("delay: answers normally after the delay", async () => {
    emulator.injectFault({ delayMs: 150 });
    const startedAt = Date.now();
    const reply = await get();
    assert.equal(reply.status, 200);
    assert.ok(Date.now() - startedAt >= 140, `answered after ${Date.now() - startedAt} ms`);
    assert.equal(emulator.requests[0].fault, "delay 150ms");
  });

  it("close() does not wait for a request held by a delay", async () => {
    emulator.injectFault({ delayMs: 10_000 });
    const pending = get();
    await new Promise((resolve) => setTimeout(resolve, 30));
    await emulator.close();
    // A close() that waited out the delay would let the answer through: the cut connection is
    // what ended the call.
    await assert.rejects(pending, TypeError);
    assert.equal(emulator.requests[0].fault, "delay 10000ms");
    assert.notEqual(emulator.requests[0].status, 200, "no answer was sent");
  });

  it("delay combines with a status", async () => {
    emulator.injectFault({ delayMs: 100, status: 502 });
    const startedAt = Date.now();
    assert.equal((await get()).status, 502);
    assert.ok(Date.now() - startedAt >= 90);
  });

  it("drop before: the connection closes without an answer and the operation is not applied", async () => {
    emulator.injectFault({ route: "deleteEndpoint", drop: "before" });
    await assert.rejects(call("DELETE", endpointPath), TypeError);
    assert.equal(emulator.hasEndpoint(serviceId, "rpe-1"), true);
    assert.equal(emulator.requests[0].status, "dropped");
    assert.equal(emulator.requests[0].fault, "drop before");
    assert.equal((await call("DELETE", endpointPath)).status, 200);
  });

  it("drop after: the operation is applied but the answer is lost, so a retry finds the endpoint gone", async () => {
    emulator.injectFault({ route: "deleteEndpoint", drop: "after" });
    await assert.rejects(call("DELETE", endpointPath), TypeError);
    assert.equal(emulator.hasEndpoint(serviceId, "rpe-1"), false);
    const retry = await call("DELETE", endpointPath);
    assert.equal(retry.status, 404);
    assert.equal(JSON.parse(retry.text).error, "Reverse private endpoint not found");
  });

  it("drop after on a state change: the command was applied", async () => {
    emulator.injectFault({ route: "changeState", drop: "after" });
    await assert.rejects(stop(), TypeError);
    assert.equal(emulator.service(serviceId)?.state, "stopping");
    const entry = emulator.requests[0];
    assert.equal(entry.status, "dropped");
    assert.equal(entry.stateBefore, "running");
    assert.equal(entry.stateAfter, "stopping");
  });

  it("malformed not-json: a 200 whose body does not parse", async () => {
    emulator.injectFault({ malformed: "not-json" });
    const reply = await get();
    assert.equal(reply.status, 200);
    assert.match(reply.headers.get("content-type") ?? "", /^application\/json/);
    assert.throws(() => JSON.parse(reply.text), SyntaxError);
    assert.equal((await get()).status, 200);
  });

  it("malformed wrong-shape: a 200 with JSON of the wrong shape", async () => {
    emulator.injectFault({ route: "changeState", malformed: "wrong-shape" });
    const reply = await stop();
    assert.equal(reply.status, 200);
    const body = JSON.parse(reply.text);
    assert.equal(body.status, undefined);
    assert.equal(body.result.state, 42);
    assert.equal(body.result.id, 7);
    // The server did process the command: only its answer is mangled.
    assert.equal(emulator.service(serviceId)?.state, "stopping");
  });

  it("ignoreCommand: answers 200 with the current service but the command is lost", async () => {
    emulator.injectFault({ ignoreCommand: true });
    // Not consumed by a read: it only applies to state changes.
    assert.equal((await get()).status, 200);
    const reply = await stop();
    assert.equal(reply.status, 200);
    assert.equal(JSON.parse(reply.text).result.state, "running");
    assert.equal(emulator.service(serviceId)?.state, "running");
    assert.equal(emulator.requests[1].fault, "ignoreCommand");
    assert.equal(JSON.parse((await stop()).text).result.state, "stopping");
  });

  it("probability: applies to the fraction of requests the random source picks, times being the cap", async () => {
    await emulator.close();
    // 0.9 misses a probability of 0.5, 0.1 hits it.
    const rolls = [0.9, 0.1, 0.9, 0.1, 0.1, 0.1];
    emulator = await start({ random: () => rolls.shift() ?? 0 });
    emulator.injectFault({ route: "getService", status: 500, probability: 0.5, times: 3 });
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 7; attempt += 1) statuses.push((await get()).status);
    assert.deepEqual(statuses, [200, 500, 200, 500, 500, 200, 200]);
  });

  it("probability with the default random source hits about that fraction", async () => {
    emulator.injectFault({ route: "getService", status: 500, probability: 0.5, times: Infinity });
    let failures = 0;
    for (let attempt = 0; attempt < 200; attempt += 1) if ((await get()).status === 500) failures += 1;
    // Binomial(200, 0.5): outside 60..140 is astronomically unlikely.
    assert.ok(failures > 60 && failures < 140, `${failures} of 200`);
  });

  it("faults apply in the order injected, one per request", async () => {
    emulator.injectFault({ status: 500 });
    emulator.injectFault({ status: 502 });
    assert.equal((await get()).status, 500);
    assert.equal((await get()).status, 502);
    assert.equal((await get()).status, 200);
  });

  it("faults never apply to the control surface, and come after auth and rate limit", async () => {
    emulator.injectFault({ status: 500, times: Infinity });
    const control = await fetch(`${emulator.url}/_emulator/requests`);
    assert.equal(control.status, 200);
    const unauthorized = await fetch(`${emulator.url}${servicePath}`);
    assert.equal(unauthorized.status, 401);
    emulator.setRateLimit({ requests: 1, windowMs: 60_000 });
    assert.equal((await get()).status, 500);
    assert.equal((await get()).status, 429);
  });

  it("refuses faults that do nothing or contradict themselves, naming the problem", () => {
    assert.throws(() => emulator.injectFault({}), /does nothing/);
    assert.throws(() => emulator.injectFault({ status: 500, drop: "before" }), /combines status and drop/);
    assert.throws(
      () => emulator.injectFault({ status: 200 }),
      /fault.status must be an integer from 400 to 599/,
    );
    assert.throws(() => emulator.injectFault({ drop: "sometimes" as "before" }), /fault.drop must be one of/);
    assert.throws(() => emulator.injectFault({ status: 500, times: 0 }), /fault.times/);
    assert.throws(
      () => emulator.injectFault({ ignoreCommand: true, route: "getService" }),
      /only applies to changeState/,
    );
  });
});
