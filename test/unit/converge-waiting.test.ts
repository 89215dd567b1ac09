import assert from "node:assert/strict";
import { type CallOptions } from "../../src/api/client";
import { ConflictError } from "../../src/api/errors";
import type { PollHint } from "../../src/api/rateBudget";
import { converge, DEFAULT_TUNING } from "../../src/provider/converge";
import { densePlan, estimateTransition } from "../../src/provider/schedule";
import { convergeError, request, scripted } from "../helpers/scriptedConverge";

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
  it("starts a stopped service once and, knowing nothing of its length, polls every 5 s like a constant poller", async () => {
    const s = scripted(["stopped", ...Array(12).fill("starting"), "running"], ["starting"]);
    const result = await converge(request(), s.deps);
    assert.equal(result.service.state, "running");
    assert.deepEqual(result.commands, ["start"]);
    assert.deepEqual(s.calls.slice(0, 2), ["GET", "PATCH start"]);
    assert.equal(s.calls.filter((c) => c.startsWith("PATCH")).length, 1);
    assert.equal(s.sleeps.length, 13);
    for (const sleep of s.sleeps) assert.equal(sleep, DEFAULT_TUNING.defaultPollMs);
  });

  it("with its own history, sleeps through most of the expected length, polls densely around the end, then backs off", async () => {
    const s = scripted(["stopped", ...Array(40).fill("starting"), "running"], ["starting"]);
    const history = { start: [60_000, 60_000, 60_000], stop: [] };
    const result = await converge(request({ history }), s.deps);
    assert.equal(result.service.state, "running");
    const estimate = estimateTransition(history.start)!;
    assert.deepEqual(estimate, { lowMs: 48_000, highMs: 72_000 });
    const plan = densePlan(estimate, DEFAULT_TUNING);
    // One long sleep to the first dense poll, well into the window.
    assert.equal(s.sleeps[0], plan.firstMs);
    assert.ok(plan.firstMs > estimate.lowMs && plan.firstMs < 60_000, `first poll at ${plan.firstMs}`);
    // Then evenly spaced polls, at most densePollMaxMs apart, until the window's end.
    const dense = s.sleeps
      .slice(1)
      .filter((_, i) => plan.firstMs + (i + 1) * plan.everyMs <= estimate.highMs);
    assert.ok(dense.length >= 5);
    for (const sleep of dense)
      assert.ok(Math.abs(sleep - plan.everyMs) < 1e-6, `${sleep} vs ${plan.everyMs}`);
    assert.ok(plan.everyMs <= DEFAULT_TUNING.densePollMaxMs);
    // Late: the intervals grow, never past maxPollMs.
    const late = s.sleeps.slice(1 + dense.length);
    assert.ok(late.length >= 3);
    for (let i = 1; i < late.length; i++) assert.ok(late[i] >= late[i - 1] - 1e-6, `late ${i}`);
    assert.ok(Math.max(...late) <= DEFAULT_TUNING.maxPollMs + 1e-6);
    assert.ok(late[late.length - 1] > plan.everyMs, "backed off");
  });

  it("learns: the length it saw goes into the result and the process prior, and the next converge of another service uses it", async () => {
    const prior = { start: [] as number[], stop: [] as number[] };
    const first = scripted(["stopped", ...Array(11).fill("starting"), "running"], ["starting"]);
    const result = await converge(request(), { ...first.deps, prior });
    // Last seen starting at 55 s, running at 60 s: the middle, 57.5 s.
    assert.deepEqual(result.transition, { direction: "start", ms: 57_500 });
    assert.deepEqual(prior.start, [57_500]);

    const second = scripted(["stopped", "starting", "running"], ["starting"]);
    const expected = densePlan(estimateTransition([], prior.start)!, DEFAULT_TUNING).firstMs;
    await converge(request(), { ...second.deps, prior });
    assert.equal(second.sleeps[0], expected);
    assert.ok(second.sleeps[0] > 40_000, "slept through most of it");
    // Its own history wins over the prior.
    const third = scripted(["stopped", "starting", "running"], ["starting"]);
    await converge(request({ history: { start: [10_000], stop: [] } }), { ...third.deps, prior });
    assert.equal(third.sleeps[0], densePlan(estimateTransition([10_000])!, DEFAULT_TUNING).firstMs);
    assert.ok(third.sleeps[0] < 12_000, `first poll after ${third.sleeps[0]} ms`);
  });

  it("records no sample when the command was re-sent or the service never moved from it", async () => {
    const prior = { start: [] as number[], stop: [] as number[] };
    const s = scripted(
      ["stopped", "stopped", "stopped", "stopped", "stopped", "stopped", "stopped", "running"],
      ["stopped", "starting"],
    );
    const result = await converge(request(), { ...s.deps, prior });
    assert.deepEqual(result.commands, ["start", "start"]);
    assert.equal(result.transition, undefined);
    assert.deepEqual(prior.start, []);
  });

  it("counts time a poll spent queued for the budget toward its interval", async () => {
    const s = scripted(["stopped", "starting", "starting", "starting", "running"], ["starting"]);
    const getService = s.deps.client.getService;
    let gets = 0;
    s.deps.client.getService = async () => {
      if (gets++ > 0) await s.deps.clock.sleep(300); // every poll waits 0.3 s for a slot
      return getService();
    };
    const history = { start: [60_000], stop: [] };
    await converge(request({ history }), s.deps);
    const { firstMs, everyMs } = densePlan(estimateTransition(history.start)!, DEFAULT_TUNING);
    // The polls stay on their grid: each sleep is the interval less the time queued.
    const pollSleeps = s.sleeps.filter((ms) => ms !== 300);
    assert.equal(pollSleeps[0], firstMs);
    assert.equal(pollSleeps.length, 4, "a first poll and three on the grid");
    for (const sleep of pollSleeps.slice(1)) assert.ok(Math.abs(sleep - (everyMs - 300)) < 1e-6, `${sleep}`);
  });

  it("marks its polls for the budget, with a likelihood of being done that rises with time; reads and commands unmarked", async () => {
    const s = scripted(["stopped", "starting", "starting", "running"], ["starting"]);
    const hints: (PollHint | undefined)[] = [];
    const likelihoods: number[] = [];
    const getService = s.deps.client.getService;
    s.deps.client.getService = async (_o?: string, _i?: string, options?: CallOptions) => {
      hints.push(options?.poll);
      if (options?.poll) likelihoods.push(options.poll.likelihood());
      return getService();
    };
    const history = { start: [20_000], stop: [] };
    await converge(request({ history }), s.deps);
    assert.equal(hints[0], undefined, "the first read is not a poll");
    assert.ok(hints.slice(1).every(Boolean), "every later GET is a poll");
    for (let i = 1; i < likelihoods.length; i++) assert.ok(likelihoods[i] > likelihoods[i - 1]);
    assert.ok(likelihoods.every((l) => l >= 0 && l <= 1));
  });

  it("looks again by the end of the grace period when the command's answer still shows the old state", async () => {
    const s = scripted(["running", "stopping", "stopped"], ["running"]);
    await converge(request({ desired: "stopped", history: { start: [], stop: [300_000] } }), s.deps);
    assert.equal(s.sleeps[0], DEFAULT_TUNING.commandGraceMs);
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
