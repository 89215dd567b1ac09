import assert from "node:assert/strict";
import { ApiTimeoutError, ConflictError, ServerError } from "../../src/api/errors";
import {
  converge,
  DEFAULT_TUNING,
  describeService,
  MIN_POLL_MS,
  scaleTuning,
} from "../../src/provider/converge";
import { convergeError, ID, request, scripted } from "../helpers/scriptedConverge";

/*
 * The converger's outcomes in detail, against a scripted API on a virtual clock: the counts it
 * returns, what its timeout errors say, and when an error inside the client is a timeout.
 */

/** A 409 on a PATCH after an earlier attempt of it that may have been applied (a lost answer, then a retry). */
const maybeAppliedConflict = () =>
  Object.assign(new ConflictError({ status: 409, message: "409 (PATCH /x)", method: "PATCH", path: "/x" }), {
    possiblyApplied: true,
  });

describe("converge: what it returns and how it fails", () => {
  it("a timeout that is not a finite positive number is refused before any request", async () => {
    for (const timeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      const s = scripted(["stopped"]);
      await assert.rejects(converge(request({ timeoutMs }), s.deps), {
        name: "InvalidInputError",
        message: `the timeout must be a positive number of ms, got ${timeoutMs}`,
      });
      assert.deepEqual(s.calls, []);
    }
  });

  it("reports the commands accepted, having sent only what the state asked for", async () => {
    const s = scripted(["stopped", "starting", "running"], ["starting"]);
    const result = await converge(request(), s.deps);
    assert.deepEqual(result.commands, ["start"]);
    assert.deepEqual(s.calls, ["GET", "PATCH start", "GET", "GET"], "GET, PATCH, two polls");
    assert.equal(result.service.state, "running");
    const settled = scripted(["running"]);
    assert.deepEqual((await converge(request(), settled.deps)).commands, []);
    assert.deepEqual(settled.calls, ["GET"]);
  });

  it("a short timeout keeps 5 % of it for the last poll; the message gives tenths of a second", async () => {
    const s = scripted(["upgrading"]);
    const error = await convergeError(converge(request({ timeoutMs: 4_000 }), s.deps));
    assert.equal(s.now(), 3_800, "the last poll 200 ms (5 %) before the deadline");
    assert.equal(
      error.message,
      `Timed out after 3.8s waiting for service "analytics" (${ID.slice(0, 8)}…) to be running: it is upgrading ` +
        "(a state this provider does not know). Raise timeoutSeconds if it needs longer.",
    );
    assert.equal(error.service?.state, "upgrading");
    assert.equal(error.name, "ConvergeError");
  });

  it("ten seconds and more are given in whole seconds", async () => {
    const s = scripted(["upgrading"]);
    const error = await convergeError(converge(request({ timeoutMs: 12_345 }), s.deps));
    assert.equal(s.now(), 12_345 - 617.25, "the last poll 5 % before the deadline");
    assert.match(error.message, /^Timed out after 12s waiting for/);
  });

  it("a long timeout's message gives whole seconds, what was sent, and a state that is missing", async () => {
    const s = scripted([{ name: "", state: "stopped" }, {}], [{ state: "starting" }]);
    const error = await convergeError(converge(request({ timeoutMs: 60_000 }), s.deps));
    assert.equal(
      error.message,
      `Timed out after 59s waiting for service ${ID.slice(0, 8)}… to be running after sending start: ` +
        "it is in no reported state (a state this provider does not know). Raise timeoutSeconds if it needs longer.",
    );
    assert.equal(error.kind, "timeout");
    assert.equal(error.commandAccepted, true);
  });

  it("a client timeout near the deadline is a converge timeout; earlier, an API failure", async () => {
    const timeout = () =>
      new ApiTimeoutError({
        status: undefined,
        message: "Timed out (GET /x): slow",
        method: "GET",
        path: "/x",
      });
    const late = scripted(["starting", timeout()]);
    late.deps.clock.sleep = async (ms) => {
      late.advance(ms + 60_000); // the poll ran into the deadline
    };
    const lateError = await convergeError(converge(request({ timeoutMs: 60_000 }), late.deps));
    assert.equal(lateError.kind, "timeout");
    assert.ok(lateError.cause instanceof ApiTimeoutError);
    assert.match(lateError.message, /^Timed out after \d+s waiting for/);
    assert.ok(
      lateError.message.endsWith(": it is starting. Raise timeoutSeconds if it needs longer."),
      "a state on its way says nothing more",
    );

    const early = scripted(["starting", timeout()]);
    const earlyError = await convergeError(converge(request({ timeoutMs: 60_000 }), early.deps));
    assert.equal(earlyError.kind, "api");
    assert.equal(earlyError.message, "Timed out (GET /x): slow");

    // A client timeout exactly at the last poll's time (the deadline less its reserve) is the
    // converge's timeout too.
    const last = scripted(["starting"]);
    const get = last.deps.client.getService;
    last.deps.client.getService = async () => {
      if (last.now() >= 3_800) throw timeout();
      return get();
    };
    const lastError = await convergeError(converge(request({ timeoutMs: 4_000 }), last.deps));
    assert.equal(last.now(), 3_800);
    assert.equal(lastError.kind, "timeout");

    const first = scripted([timeout()]);
    const firstError = await convergeError(converge(request({ timeoutMs: 60_000 }), first.deps));
    assert.equal(firstError.kind, "api", "without any service seen it is not a converge timeout");
  });

  it("a command whose answer was lost counts as accepted, and is sent again only once the service moved", async () => {
    const lost = Object.assign(
      new ServerError({ status: 502, message: "502 (PATCH /x)", method: "PATCH", path: "/x" }),
      { possiblyApplied: true },
    );
    const s = scripted(
      ["stopped", new ServerError({ status: 503, message: "503", method: "GET", path: "/x" })],
      [lost],
    );
    const error = await convergeError(converge(request(), s.deps));
    assert.equal(error.commandAccepted, true, "the PATCH may have applied");
    assert.equal(error.kind, "api");
  });

  it("every command's answer lost, GETs working: past the bound it keeps looking, and succeeds once the service is there", async () => {
    const lost = () =>
      Object.assign(
        new ServerError({ status: 502, message: "502 (PATCH /x)", method: "PATCH", path: "/x" }),
        {
          possiblyApplied: true,
        },
      );
    // GET lags behind: stopped after every lost start, and once more after the third.
    const gets = ["stopped", "stopped", "stopped", "stopped", "stopped", "starting", "running"];
    const s = scripted(gets, [lost(), lost(), lost()]);
    const result = await converge(request(), s.deps);
    assert.equal(result.service.state, "running");
    assert.deepEqual(s.calls, [
      ...["GET", "PATCH start", "GET", "PATCH start", "GET", "PATCH start"],
      ...["GET", "GET", "GET", "GET"],
    ]);
    assert.equal(result.lastCommand?.command, "start", "the lost start, for the next converge");
    assert.ok(s.info.some((line) => /the answer to start was lost \(502 \(PATCH \/x\)\)/.test(line)));
  });

  it("every command's answer lost and the service never there: a timeout recording what the last GET showed", async () => {
    const lost = Object.assign(
      new ServerError({ status: 502, message: "502 (PATCH /x)", method: "PATCH", path: "/x" }),
      { possiblyApplied: true },
    );
    const s = scripted(["stopped", "stopped", "stopped", "stopped", "starting"], [lost, lost, lost]);
    const error = await convergeError(converge(request({ timeoutMs: 60_000 }), s.deps));
    assert.equal(error.kind, "timeout");
    assert.equal(error.commandAccepted, true);
    assert.equal(error.service?.state, "starting");
    assert.match(
      error.message,
      /after 3 start command\(s\) whose answers were lost \(last: 502 \(PATCH \/x\)\): it is starting\./,
    );
  });

  it("an API failure that cannot have applied anything is no command accepted", async () => {
    const refused = new ServerError({ status: 503, message: "503", method: "GET", path: "/x" });
    const error = await convergeError(converge(request(), scripted([refused]).deps));
    assert.equal(error.kind, "api");
    assert.equal(error.commandAccepted, false);
    assert.equal(error.lastCommand, undefined);
  });

  it("a 409 after an attempt that may have applied: sent again at the next look, like any 409", async () => {
    const s = scripted(["stopped", "stopped", "starting", "running"], [maybeAppliedConflict(), "starting"]);
    const result = await converge(request(), s.deps);
    assert.deepEqual(s.calls, ["GET", "PATCH start", "GET", "PATCH start", "GET", "GET"]);
    assert.deepEqual(result.commands, ["start"]);
  });

  it("its one re-send refused as conflicting and nothing moved since: no third command, a timeout", async () => {
    // The start is accepted but GET keeps showing stopped; after a grace period it is sent
    // again, and that answer is a 409 after an attempt that may have applied.
    const s = scripted(["stopped"], ["stopped", maybeAppliedConflict()]);
    const error = await convergeError(converge(request({ timeoutMs: 200_000 }), s.deps));
    assert.equal(s.calls.filter((c) => c === "PATCH start").length, 2);
    assert.equal(error.kind, "timeout");
  });

  it("polls never shorter than MIN_POLL_MS, however small the tuning", async () => {
    const s = scripted(
      ["stopped", "starting", "starting", "running"],
      ["starting"],
      scaleTuning(DEFAULT_TUNING, 1e-7),
    );
    await converge(request(), s.deps);
    assert.ok(s.sleeps.length >= 2);
    for (const ms of s.sleeps) assert.equal(ms, MIN_POLL_MS);
  });

  it("names a service by name and short id, or by short id alone", () => {
    assert.equal(describeService({ name: "db" }, ID), `service "db" (4a3b2c1d…)`);
    assert.equal(describeService({ name: null }, ID), "service 4a3b2c1d…");
    assert.equal(describeService(undefined, ID), "service 4a3b2c1d…");
  });
});
