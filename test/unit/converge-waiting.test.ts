import assert from "node:assert/strict";
import { ConflictError } from "../../src/api/errors";
import { converge, DEFAULT_TUNING } from "../../src/provider/converge";
import { convergeError, request, scripted, type ConvergeCallOptions } from "../helpers/scriptedConverge";

/*
 * The converger against a scripted API and a virtual clock: nothing really waits, and each
 * test asserts the requests made, the waits taken and the outcome.
 */

const conflict = () =>
  new ConflictError({
    status: 409,
    message: "409 conflict",
    serverMessage: "transition in progress",
    method: "PATCH",
    path: "/x",
  });

describe("converge: waiting and commands", () => {
  it("starts a stopped service once, then polls 5 s after each answer until it is running", async () => {
    const s = scripted(["stopped", ...Array(12).fill("starting"), "running"], ["starting"]);
    const result = await converge(request(), s.deps);
    assert.equal(result.service.state, "running");
    assert.deepEqual(result.commands, ["start"]);
    assert.deepEqual(s.calls.slice(0, 2), ["GET", "PATCH start"]);
    assert.equal(s.calls.filter((c) => c.startsWith("PATCH")).length, 1);
    assert.deepEqual(s.sleeps, Array(13).fill(DEFAULT_TUNING.pollEveryMs));
  });

  it("times each poll from the last answer: time spent queued for the budget or on the wire does not shorten the next wait", async () => {
    const s = scripted(["stopped", "starting", "starting", "starting", "running"], ["starting"]);
    const answeredAt: number[] = [];
    const getService = s.deps.client.getService;
    s.deps.client.getService = async () => {
      s.advance(300); // every GET takes 0.3 s, queued or on the wire
      answeredAt.push(s.now());
      return getService();
    };
    await converge(request(), s.deps);
    assert.deepEqual(s.sleeps, Array(4).fill(5_000));
    for (let i = 1; i < answeredAt.length; i++) assert.equal(answeredAt[i] - answeredAt[i - 1], 5_300);
  });

  it("the same 5 s for a long transition: no learning, no burst of polls", async () => {
    const s = scripted(["running", ...Array(59).fill("stopping"), "stopped"], ["stopping"]);
    await converge(request({ desired: "stopped" }), s.deps);
    assert.equal(s.calls.length, 62, "GET, PATCH, 60 polls: one per 5 s over 300 s");
    assert.ok(s.sleeps.every((ms) => ms === 5_000));
  });

  it("marks every poll for the budget with how long its service has waited since the command and since the last look; the first read and commands are unmarked", async () => {
    const s = scripted(["stopped", "starting", "starting", "running"], ["starting"]);
    const hints: { waitedMs: number; unseenMs: number }[] = [];
    const reads: (ConvergeCallOptions | undefined)[] = [];
    const getService = s.deps.client.getService;
    s.deps.client.getService = async (_o?: string, _i?: string, options?: ConvergeCallOptions) => {
      reads.push(options);
      const hint = options?.poll;
      if (hint) hints.push({ waitedMs: hint.waitedMs(), unseenMs: hint.unseenMs() });
      s.advance(1_000); // each GET answers a second later (queued or on the wire)
      return getService();
    };
    const changeState = s.deps.client.changeServiceState;
    s.deps.client.changeServiceState = async (o, i, command, options) => {
      assert.equal(options?.poll, undefined, "a command is no poll");
      s.advance(1_000);
      return changeState(o, i, command, options);
    };
    await converge(request(), s.deps);
    assert.equal(reads[0]?.poll, undefined, "the first read is not a poll");
    // The command answered at 2 s; polls asked at 7 s, 13 s and 19 s, each 5 s after an answer.
    assert.deepEqual(hints, [
      { waitedMs: 5_000, unseenMs: 5_000 },
      { waitedMs: 11_000, unseenMs: 5_000 },
      { waitedMs: 17_000, unseenMs: 5_000 },
    ]);
  });

  it("the PATCH answer counts as a look; when GET still shows the old state, the re-send comes at the grace period's end", async () => {
    const gets = ["running", "running", "running", "running", "stopped"];
    const s = scripted(gets, ["running", "stopping"], { commandGraceMs: 12_000 });
    const sentAt: number[] = [];
    const changeState = s.deps.client.changeServiceState;
    s.deps.client.changeServiceState = async (o, i, command, options) => {
      sentAt.push(s.now());
      return changeState(o, i, command, options);
    };
    const result = await converge(request({ desired: "stopped" }), s.deps);
    assert.deepEqual(result.commands, ["stop", "stop"]);
    assert.deepEqual(sentAt, [0, 12_000], "sent, then once more when the grace period is over");
    assert.deepEqual(s.sleeps, [5_000, 5_000, 2_000, 5_000], "5 s apart, one cut to the grace period's end");
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
    const error = await convergeError(converge(request({ timeoutMs: 200_000 }), s.deps));
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
    const error = await convergeError(converge(request(), s.deps));
    assert.equal(error.kind, "flapping");
    assert.equal(s.calls.filter((c) => c === "PATCH start").length, DEFAULT_TUNING.maxCommands);
    assert.equal(
      error.message,
      `service "analytics" (4a3b2c1d…) went back to stopped after 3 commands; something else is changing ` +
        "its state. Stopping here so as not to fight it.",
    );
  });

  it("treats 409 on the command as a transition in progress: waits, then sends", async () => {
    const s = scripted(["stopped", "stopped", "starting", "running"], [conflict(), "starting"]);
    const result = await converge(request(), s.deps);
    assert.deepEqual(result.commands, ["start"]);
    assert.equal(s.calls.filter((c) => c === "PATCH start").length, 2);
  });

  it("fails at once on a terminal state, without a command", async () => {
    const s = scripted(["terminated"]);
    const error = await convergeError(converge(request(), s.deps));
    assert.equal(error.kind, "terminal");
    assert.equal(error.commandAccepted, false);
    assert.deepEqual(s.calls, ["GET"]);
    assert.match(error.message, /terminated/);
  });

  it("waits on an unknown state and fails at the deadline naming it, no sleep past the deadline", async () => {
    const s = scripted(["upgrading"]);
    const error = await convergeError(converge(request({ timeoutMs: 60_000 }), s.deps));
    assert.deepEqual(s.sleeps, [...Array(11).fill(5_000), 4_000], "every 5 s, the last wait cut short");
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
    await convergeError(converge(request({ timeoutMs: 300_000 }), s.deps));
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
    const error = await convergeError(converge(request(), s.deps));
    assert.equal(error.kind, "api");
    assert.equal(error.commandAccepted, true);
  });
});
