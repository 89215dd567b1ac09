import assert from "node:assert/strict";
import type { CallOptions, ServiceCommand } from "../../src/api/options";
import { type Clock } from "../../src/api/clock";
import { BadRequestError, ServerError } from "../../src/api/errors";
import { converge, ConvergeError, DEFAULT_TUNING, type ConvergeRequest } from "../../src/provider/converge";
import { lastCommandFromOutputs, type SentCommand } from "../../src/provider/lastCommand";

/*
 * The converger after a command sent before it (recorded in the outputs): within the grace
 * period after it, a GET showing a state the command is sent from may predate the command, and
 * proves nothing. Against a scripted API on a virtual clock.
 */

const ORG = "3f2a1c9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b";
const ID = "4a3b2c1d-0e9f-4a8b-8c7d-6e5f4a3b2c1d";
const T0 = 1_000_000;
/** The wall clock at T0: another timeline than the monotonic one. */
const WALL0 = Date.parse("2026-03-01T12:00:00.000Z");
const GRACE = DEFAULT_TUNING.commandGraceMs;

type Answer = string | Error;

/** GET answers come from `gets` (the last one repeats); PATCH answers from `patches`. */
function scripted(gets: Answer[], patches: Answer[] = []) {
  const calls: string[] = [];
  let now = T0;
  const clock: Clock = {
    now: () => now,
    wallNow: () => WALL0 + now - T0,
    sleep: async (ms) => {
      now += ms;
    },
  };
  const answer = (value: Answer | undefined) => {
    if (value instanceof Error) throw value;
    return { service: { id: ID, name: "analytics", state: value }, requestId: "r" };
  };
  const client = {
    async getService() {
      calls.push(`GET ${gets[0] instanceof Error ? "error" : gets[0]}`);
      return answer(gets.length > 1 ? gets.shift() : gets[0]);
    },
    async changeServiceState(_o: string, _i: string, command: ServiceCommand, options: CallOptions = {}) {
      calls.push(`PATCH ${command}`);
      if (options.applyBudget) options.applyBudget.used++;
      return answer(patches.shift());
    },
  };
  const info: string[] = [];
  const deps = {
    client,
    clock,
    log: { info: (line: string) => info.push(line), warn: () => undefined },
    tuning: { ...DEFAULT_TUNING },
  };
  return { deps, calls, info, now: () => now };
}

const request = (overrides: Partial<ConvergeRequest> = {}): ConvergeRequest => ({
  organizationId: ORG,
  serviceId: ID,
  desired: "stopped",
  timeoutMs: 1_200_000,
  waitForState: true,
  ...overrides,
});
/** A start sent 2 s before the converge begins. */
const recentStart: SentCommand = { command: "start", atMs: T0 - 2_000, wallMs: WALL0 - 2_000, seen: false };

describe("converge: a read that may predate the command sent before it", () => {
  it("after a recorded start, stopped does not satisfy stopped: it polls until the start shows, then stops", async () => {
    const s = scripted(["stopped", "stopped", "starting", "running", "stopped"], ["stopping"]);
    const result = await converge(request({ lastCommand: recentStart }), s.deps);
    assert.deepEqual(s.calls, [
      "GET stopped",
      "GET stopped",
      "GET starting",
      "GET running",
      "PATCH stop",
      "GET stopped",
    ]);
    assert.equal(result.service.state, "stopped");
    assert.deepEqual(result.commands, ["stop"]);
    assert.match(s.info[0], /shows stopped, which may predate the start sent; looking again/);
  });

  it("after a recorded stop, running does not satisfy running: it waits for the stop to show, then starts", async () => {
    const s = scripted(["running", "stopping", "stopped", "running"], ["starting"]);
    const result = await converge(
      request({
        desired: "running",
        lastCommand: { command: "stop", atMs: T0 - 1, wallMs: WALL0 - 1, seen: false },
      }),
      s.deps,
    );
    assert.deepEqual(s.calls, ["GET running", "GET stopping", "GET stopped", "PATCH start", "GET running"]);
    assert.equal(result.service.state, "running");
  });

  it("after a recorded start, stopped does not make a converge to running send start again: the first start shows", async () => {
    const s = scripted(["stopped", "starting", "running"]);
    const result = await converge(request({ desired: "running", lastCommand: recentStart }), s.deps);
    assert.deepEqual(s.calls, ["GET stopped", "GET starting", "GET running"]);
    assert.deepEqual(result.commands, []);
    assert.deepEqual(result.lastCommand, { ...recentStart, seen: true }, "the earlier start, now seen");
  });

  it("a recorded start that never shows: from the end of its grace period on, stopped is taken at its word", async () => {
    const s = scripted(["stopped"]);
    const result = await converge(request({ lastCommand: recentStart }), s.deps);
    assert.equal(result.service.state, "stopped");
    assert.deepEqual(result.commands, []);
    assert.equal(s.now(), recentStart.atMs + GRACE, "the last poll at the grace period's end, not later");
    assert.ok(s.calls.length > 2, "it looked again in between");
    assert.deepEqual(s.calls, Array(7).fill("GET stopped"), "every 5 s, then at the grace period's end");

    // A normal poll due after the grace period's end comes at that end instead.
    const late = scripted(["stopped"]);
    await converge(request({ lastCommand: { ...recentStart, atMs: T0 - GRACE + 1_000 } }), late.deps);
    assert.deepEqual(late.calls, ["GET stopped", "GET stopped"]);
    assert.equal(late.now(), T0 + 1_000);

    const toRunning = scripted(["stopped"], ["starting"]);
    await converge(
      request({ desired: "running", lastCommand: recentStart, waitForState: false }),
      toRunning.deps,
    );
    assert.equal(toRunning.now(), recentStart.atMs + GRACE);
    assert.deepEqual(toRunning.calls.slice(-1), ["PATCH start"], "then the start counts as lost: sent");
  });

  it("a record from before the grace period, or none, changes nothing: one GET", async () => {
    for (const lastCommand of [
      { command: "start" as const, atMs: T0 - GRACE, wallMs: WALL0 - GRACE, seen: false },
      undefined,
    ]) {
      const s = scripted(["stopped"]);
      await converge(request({ lastCommand }), s.deps);
      assert.deepEqual(s.calls, ["GET stopped"]);
      assert.equal(s.now(), T0);
    }
  });

  it("a record stored with a time from the future (another machine's clock, a stepped wall clock) counts as sent now", async () => {
    const s = scripted(["stopped"]);
    const sentAt = new Date(WALL0 + 600_000).toISOString();
    const lastCommand = lastCommandFromOutputs({ command: "start", sentAt, seen: false }, s.deps.clock);
    await converge(request({ lastCommand }), s.deps);
    assert.equal(s.now(), T0 + GRACE, "one grace period from now, not ten minutes more");
    assert.deepEqual(s.calls, Array(7).fill("GET stopped"));
  });

  it("once a read has shown the command, a later stopped is real (someone stopped it): start at once", async () => {
    const s = scripted(["starting", "stopped", "running"], ["starting"]);
    await converge(request({ desired: "running", lastCommand: recentStart }), s.deps);
    assert.deepEqual(s.calls, ["GET starting", "GET stopped", "PATCH start", "GET running"]);
  });

  it("a recorded start a GET has already shown: stopped is real (someone stopped it), start at once", async () => {
    const s = scripted(["stopped", "running"], ["starting"]);
    await converge(request({ desired: "running", lastCommand: { ...recentStart, seen: true } }), s.deps);
    assert.deepEqual(s.calls, ["GET stopped", "PATCH start", "GET running"]);
  });

  it("the earlier record comes back as it was while no GET shows it, and seen once one does", async () => {
    const stale = await converge(request({ lastCommand: recentStart }), scripted(["stopped"]).deps);
    assert.deepEqual(stale.lastCommand, recentStart, "the grace period passed with stopped all along");
    const shown = await converge(
      request({ desired: "running", lastCommand: recentStart }),
      scripted(["starting", "running"]).deps,
    );
    assert.deepEqual(shown.lastCommand, { ...recentStart, seen: true });
    // A state the table does not know is not one the start is sent from: it shows the start too.
    const odd = await converge(
      request({ desired: "running", lastCommand: recentStart, timeoutMs: 10_000 }),
      scripted(["upgrading"]).deps,
    ).catch((error: ConvergeError) => error);
    assert.deepEqual(odd.lastCommand, { ...recentStart, seen: true });
  });

  it("its own command is seen once a GET after it shows anything but the state it was sent from", async () => {
    const s = scripted(["stopped", "stopped", "starting", "running"], ["starting"]);
    const result = await converge(request({ desired: "running" }), s.deps);
    assert.equal(result.lastCommand?.seen, true);
  });

  it("a terminal state fails at once, whatever was sent before", async () => {
    const s = scripted(["terminated"]);
    const error = await converge(request({ lastCommand: recentStart }), s.deps).then(
      () => assert.fail("expected a failure"),
      (e: unknown) => e as ConvergeError,
    );
    assert.equal(error.kind, "terminal");
  });

  it("a deadline inside the grace period: the timeout says the read may predate the start", async () => {
    const s = scripted(["stopped"]);
    const error = await converge(request({ lastCommand: recentStart, timeoutMs: 10_000 }), s.deps).then(
      () => assert.fail("expected a timeout"),
      (e: unknown) => e as ConvergeError,
    );
    assert.equal(error.kind, "timeout");
    assert.equal(error.commandAccepted, false, "this converge sent nothing: nothing to record");
    assert.match(
      error.message,
      /it is stopped \(or so a GET shows, which may predate the start sent 12s before\)/,
    );
  });
});

describe("converge: the last command it sent, for the outputs", () => {
  it("waitForState false: the command it sent and when, by its monotonic and its wall clock", async () => {
    const s = scripted(["stopped"], ["starting"]);
    const result = await converge(request({ desired: "running", waitForState: false }), s.deps);
    assert.deepEqual(
      result.lastCommand,
      { command: "start", atMs: T0, wallMs: WALL0, seen: false },
      "no GET showed it",
    );
    assert.equal(result.service.state, "starting");
  });

  it("waiting: the last of its commands", async () => {
    // Someone starts it again after the first stop: a second stop.
    const s = scripted(["running", "stopping", "running", "stopped"], ["stopping", "stopping"]);
    const result = await converge(
      request({ lastCommand: { command: "start", atMs: T0 - GRACE, wallMs: WALL0 - GRACE, seen: false } }),
      s.deps,
    );
    assert.deepEqual(result.commands, ["stop", "stop"]);
    assert.equal(result.lastCommand?.command, "stop");
    assert.ok(result.lastCommand!.atMs > T0, "the second one's time");
  });

  it("a PATCH whose answer was lost may have been applied: the error carries it as the last command", async () => {
    const lost = Object.assign(
      new ServerError({ status: 502, message: "502 (PATCH /x)", method: "PATCH", path: "/x" }),
      { possiblyApplied: true },
    );
    const s = scripted(["stopped"], [lost, lost, lost]);
    const error = await converge(request({ desired: "running", timeoutMs: 60_000 }), s.deps).then(
      () => assert.fail("expected a failure"),
      (e: unknown) => e as ConvergeError,
    );
    assert.equal(error.commandAccepted, true);
    assert.equal(s.calls.filter((call) => call === "PATCH start").length, 3);
    const last = error.lastCommand!;
    assert.deepEqual({ ...last, atMs: 0, wallMs: 0 }, { command: "start", atMs: 0, wallMs: 0, seen: false });
    assert.ok(last.atMs > T0, "the third one's time");
    assert.equal(last.wallMs - WALL0, last.atMs - T0, "and on the wall clock the same moment");
  });

  it("a PATCH refused without applying (a 400) is no last command", async () => {
    const refused = new BadRequestError({
      status: 400,
      message: "400 (PATCH /x)",
      method: "PATCH",
      path: "/x",
    });
    const s = scripted(["stopped"], [refused]);
    const error = await converge(request({ desired: "running" }), s.deps).then(
      () => assert.fail("expected a failure"),
      (e: unknown) => e as ConvergeError,
    );
    assert.equal(error.lastCommand, undefined);
  });
});
