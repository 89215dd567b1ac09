import assert from "node:assert/strict";
import { type RequestOptions, type ServiceCommand } from "../../src/api/client";
import { type Clock } from "../../src/api/clock";
import { ConflictError } from "../../src/api/errors";
import { converge, ConvergeError, DEFAULT_TUNING, type ConvergeRequest } from "../../src/provider/converge";

/*
 * The converger against a scripted API and a virtual clock: nothing really waits, and each
 * test asserts the requests made, the waits taken and the outcome.
 */

const ORG = "3f2a1c9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b";
const ID = "4a3b2c1d-0e9f-4a8b-8c7d-6e5f4a3b2c1d";

type Answer = string | Error;

/** GET answers come from `gets` (the last one repeats); PATCH answers from `patches`. */
function scripted(gets: Answer[], patches: Answer[] = []) {
  const calls: string[] = [];
  const sleeps: number[] = [];
  let now = 0;
  const clock: Clock = {
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
  };
  const answer = (value: Answer | undefined) => {
    if (value instanceof Error) throw value;
    return { service: { id: ID, name: "analytics", state: value }, requestId: "r" };
  };
  const client = {
    async getService() {
      calls.push("GET");
      return answer(gets.length > 1 ? gets.shift() : gets[0]);
    },
    // Like the real client: a PATCH is not sent once the converge's command bound is spent,
    // and every one sent counts against it unless the answer is a refusal (409).
    async changeServiceState(
      _org: string,
      _id: string,
      command: ServiceCommand,
      options: RequestOptions = {},
    ) {
      const bound = options.applyBudget;
      if (bound && bound.used >= bound.max) throw new Error("client refused: command bound spent");
      calls.push(`PATCH ${command}`);
      const next = patches.shift();
      if (bound && !(next instanceof ConflictError)) bound.used++;
      return answer(next);
    },
  };
  const info: string[] = [];
  const warn: string[] = [];
  const deps = {
    client,
    clock,
    random: () => 0.5,
    log: { info: (l: string) => info.push(l), warn: (l: string) => warn.push(l) },
    tuning: { ...DEFAULT_TUNING },
  };
  return { deps, calls, sleeps, info, warn, now: () => now };
}

const request = (overrides: Partial<ConvergeRequest> = {}): ConvergeRequest => ({
  organizationId: ORG,
  serviceId: ID,
  desired: "running",
  timeoutMs: 1_200_000,
  waitForState: true,
  ...overrides,
});

const conflict = () =>
  new ConflictError({
    status: 409,
    message: "409 conflict",
    serverMessage: "transition in progress",
    method: "PATCH",
    path: "/x",
  });

async function rejects(promise: Promise<unknown>): Promise<ConvergeError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ConvergeError, String(error));
    return error;
  }
  assert.fail("expected a ConvergeError");
}

describe("converge: waiting and commands", () => {
  it("starts a stopped service once and polls with growing, capped waits until it runs", async () => {
    const s = scripted(["stopped", ...Array(12).fill("starting"), "running"], ["starting"]);
    const result = await converge(request(), s.deps);
    assert.equal(result.service.state, "running");
    assert.deepEqual(result.commands, ["start"]);
    assert.deepEqual(s.calls.slice(0, 2), ["GET", "PATCH start"]);
    assert.equal(s.calls.filter((c) => c.startsWith("PATCH")).length, 1);
    // With random() = 0.5 the jitter factor is exactly 1: the intervals are the schedule itself.
    assert.equal(s.sleeps[0], DEFAULT_TUNING.firstPollMs);
    for (let i = 1; i < s.sleeps.length; i++) {
      const expected = Math.min(
        DEFAULT_TUNING.maxPollMs,
        DEFAULT_TUNING.firstPollMs * DEFAULT_TUNING.pollGrowth ** i,
      );
      assert.ok(Math.abs(s.sleeps[i] - expected) < 1e-6, `sleep ${i}: ${s.sleeps[i]} vs ${expected}`);
    }
    assert.equal(Math.max(...s.sleeps), DEFAULT_TUNING.maxPollMs);
  });

  it("keeps jitter within ±20 % of the interval", async () => {
    for (const random of [0, 0.999999]) {
      const s = scripted(["stopped", "starting", "starting", "running"], ["starting"]);
      s.deps.random = () => random;
      await converge(request(), s.deps);
      const factor = s.sleeps[0] / DEFAULT_TUNING.firstPollMs;
      assert.ok(factor >= 0.8 - 1e-9 && factor <= 1.2 + 1e-9, `factor ${factor}`);
    }
  });

  it("is satisfied at once by running, idle and degraded (with a warning), with no command", async () => {
    for (const state of ["running", "idle", "degraded"]) {
      const s = scripted([state]);
      const result = await converge(request(), s.deps);
      assert.deepEqual(s.calls, ["GET"]);
      assert.deepEqual(result.commands, []);
      assert.equal(s.warn.length, state === "degraded" ? 1 : 0);
    }
  });

  it("waits for a stop to finish before starting (never a command against a transition)", async () => {
    const s = scripted(["stopping", "stopping", "stopped", "starting", "running"], ["starting"]);
    const result = await converge(request(), s.deps);
    assert.deepEqual(s.calls, ["GET", "GET", "GET", "PATCH start", "GET", "GET"]);
    assert.deepEqual(result.commands, ["start"]);
  });

  it("tolerates GET showing the old state within the grace period (visibility lag): one command", async () => {
    const s = scripted(["running", "running", "running", "stopping", "stopped"], ["stopping"]);
    await converge(request({ desired: "stopped" }), s.deps);
    assert.equal(s.calls.filter((c) => c === "PATCH stop").length, 1);
  });

  it("re-sends the command exactly once when nothing moved for a whole grace period", async () => {
    const s = scripted(["stopped"], ["stopped", "stopped"]);
    const error = await rejects(converge(request({ timeoutMs: 200_000 }), s.deps));
    assert.equal(s.calls.filter((c) => c === "PATCH start").length, 2);
    assert.equal(error.kind, "timeout");
    assert.equal(error.commandAccepted, true);
    assert.match(error.message, /after sending start, then start: it is stopped/);
    const resentAt = s.info.findIndex((l) => /sending it again/.test(l));
    assert.ok(resentAt >= 0, s.info.join("\n"));
  });

  it("sends again when the service moved and came back, up to maxCommands, then stops fighting", async () => {
    const s = scripted(
      ["stopped", "starting", "stopped", "starting", "stopped", "starting", "stopped"],
      ["starting", "starting", "starting"],
    );
    const error = await rejects(converge(request(), s.deps));
    assert.equal(error.kind, "flapping");
    assert.equal(s.calls.filter((c) => c === "PATCH start").length, DEFAULT_TUNING.maxCommands);
  });

  it("treats 409 on the command as a transition in progress: waits, then sends", async () => {
    const s = scripted(["stopped", "stopped", "starting", "running"], [conflict(), "starting"]);
    const result = await converge(request(), s.deps);
    assert.deepEqual(result.commands, ["start"]);
    assert.equal(s.calls.filter((c) => c === "PATCH start").length, 2);
  });

  it("fails at once on a terminal state, without a command", async () => {
    const s = scripted(["terminated"]);
    const error = await rejects(converge(request(), s.deps));
    assert.equal(error.kind, "terminal");
    assert.equal(error.commandAccepted, false);
    assert.deepEqual(s.calls, ["GET"]);
    assert.match(error.message, /terminated/);
  });

  it("waits on an unknown state and fails at the deadline naming it, no sleep past the deadline", async () => {
    const s = scripted(["upgrading"]);
    const error = await rejects(converge(request({ timeoutMs: 60_000 }), s.deps));
    assert.equal(error.kind, "timeout");
    assert.equal(error.commandAccepted, false);
    assert.match(error.message, /it is upgrading \(a state this provider does not know\)/);
    // One last poll just before the deadline (5 % of the timeout, at most 1 s), so it can answer in time.
    assert.equal(s.now(), 59_000, "the last wait ends just before the deadline");
    assert.equal(s.calls[s.calls.length - 1], "GET");
    assert.ok(!s.calls.some((c) => c.startsWith("PATCH")));
  });

  it("prints a progress line at most once per progressEveryMs", async () => {
    const s = scripted(["upgrading"]);
    await rejects(converge(request({ timeoutMs: 300_000 }), s.deps));
    const progress = s.info.filter((l) => /upgrading, target running, \d+s elapsed/.test(l));
    assert.ok(progress.length >= 8 && progress.length <= 10, `${progress.length} lines in 300 s`);
  });

  describe("waitForState: false", () => {
    it("returns with the PATCH answer right after the accepted command", async () => {
      const s = scripted(["stopped"], ["starting"]);
      const result = await converge(request({ waitForState: false }), s.deps);
      assert.equal(result.service.state, "starting");
      assert.deepEqual(s.calls, ["GET", "PATCH start"]);
    });

    it("returns at once when a transition is already going the right way", async () => {
      const s = scripted(["starting"]);
      await converge(request({ waitForState: false }), s.deps);
      assert.deepEqual(s.calls, ["GET"]);
    });

    it("still waits out a transition the other way before sending", async () => {
      const s = scripted(["stopping", "stopped"], ["starting"]);
      const result = await converge(request({ waitForState: false }), s.deps);
      assert.deepEqual(s.calls, ["GET", "GET", "PATCH start"]);
      assert.equal(result.service.state, "starting");
    });
  });

  it("turns an API failure after a command into a ConvergeError that says a command was accepted", async () => {
    const s = scripted(["stopped", new Error("503 unavailable")], ["starting"]);
    const error = await rejects(converge(request(), s.deps));
    assert.equal(error.kind, "api");
    assert.equal(error.commandAccepted, true);
  });
});
