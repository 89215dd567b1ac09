import assert from "node:assert/strict";
import type { Clock } from "../../src/api/clock";
import {
  afterRead,
  lastCommandFromOutputs,
  lastCommandToOutputs,
  mayPredate,
} from "../../src/provider/lastCommand";

/*
 * `lastCommand` in the outputs: written as ISO text by the wall clock, read back from state of
 * any version (old, hand-edited, another machine's clock) as a record on the monotonic timeline
 * or as none, and the rule that a read within the grace period after it, showing a state it was
 * sent from, may predate it.
 */

const NOW = Date.parse("2026-03-01T12:00:00.000Z");
const GRACE = 30_000;
/** The monotonic timeline is not the wall clock's: here it reads 5 s when the wall reads NOW. */
const MONO_NOW = 5_000;
const clock: Clock = { now: () => MONO_NOW, wallNow: () => NOW, sleep: async () => {} };

describe("lastCommand: the record in the outputs", () => {
  it("is written as the command and its time in ISO 8601 UTC, and read back as it was", () => {
    for (const seen of [false, true]) {
      const sent = { command: "start" as const, atMs: MONO_NOW - 1_234, wallMs: NOW - 1_234, seen };
      const written = lastCommandToOutputs(sent);
      assert.deepEqual(written, { command: "start", sentAt: "2026-03-01T11:59:58.766Z", seen });
      assert.deepEqual(lastCommandFromOutputs(written, clock), sent);
    }
  });

  it("no command is written as empty strings, never undefined, and read as none", () => {
    const none = lastCommandToOutputs(undefined);
    assert.deepEqual(none, { command: "", sentAt: "", seen: false });
    assert.equal(lastCommandFromOutputs(none, clock), undefined);
  });

  const garbage: [string, unknown][] = [
    ["absent (state written before the output existed)", undefined],
    ["null", null],
    ["a string", "start"],
    ["a list", ["start", "2026-03-01T11:59:58.766Z"]],
    ["an unknown command", { command: "restart", sentAt: "2026-03-01T11:59:58.766Z" }],
    ["a command in capitals", { command: "Start", sentAt: "2026-03-01T11:59:58.766Z" }],
    ["a time that is a number", { command: "start", sentAt: NOW - 1_000 }],
    ["a time that is not a date", { command: "start", sentAt: "a moment ago" }],
    ["a date in another form", { command: "start", sentAt: "Sun, 01 Mar 2026 11:59:58 GMT" }],
    ["a date without milliseconds", { command: "start", sentAt: "2026-03-01T11:59:58Z" }],
  ];
  for (const [what, value] of garbage) {
    it(`${what}: read as no record`, () => {
      assert.equal(lastCommandFromOutputs(value, clock), undefined);
    });
  }
  it("a time exactly now is a record; without seen (or with anything but true), not seen", () => {
    for (const seen of [undefined, "true", 1, null, false])
      assert.deepEqual(
        lastCommandFromOutputs({ command: "stop", sentAt: "2026-03-01T12:00:00.000Z", seen }, clock),
        { command: "stop", atMs: MONO_NOW, wallMs: NOW, seen: false },
      );
  });

  it("a time in the future (another clock, a wall clock stepped back since, a hand edit) counts as sent now", () => {
    for (const sentAt of ["2026-03-01T12:10:00.000Z", "+275760-09-13T00:00:00.000Z"]) {
      const read = lastCommandFromOutputs({ command: "stop", sentAt }, clock);
      assert.equal(read?.atMs, MONO_NOW, sentAt);
      assert.equal(read?.wallMs, Date.parse(sentAt), "the stored text is kept as it was");
    }
  });

  it("a time in the far past is simply old, measured on the monotonic timeline", () => {
    for (const [sentAt, ageMs] of [
      ["2026-03-01T11:00:00.000Z", 3_600_000],
      ["-271821-04-20T00:00:00.000Z", NOW + 8.64e15],
    ] as const) {
      const read = lastCommandFromOutputs({ command: "start", sentAt }, clock);
      assert.equal(read?.atMs, MONO_NOW - ageMs, sentAt);
      assert.equal(mayPredate("stopped", read, MONO_NOW, GRACE), false);
    }
  });
});

describe("lastCommand: a read that may predate it", () => {
  const start = { command: "start" as const, atMs: NOW, wallMs: NOW, seen: false };
  const stop = { command: "stop" as const, atMs: NOW, wallMs: NOW, seen: false };

  it("a state the command is sent from, within the grace period, may predate it", () => {
    assert.equal(mayPredate("stopped", start, NOW, GRACE), true);
    assert.equal(mayPredate("stopped", start, NOW + GRACE - 1, GRACE), true);
    for (const state of ["running", "idle", "degraded"])
      assert.equal(mayPredate(state, stop, NOW + 1, GRACE), true);
  });

  it("a state that shows the command, its target, or any other state is taken as it is", () => {
    for (const state of ["starting", "running", "idle", "awaking", "stopping", "failed", "upgrading", ""])
      assert.equal(mayPredate(state, start, NOW + 1, GRACE), false, state);
    for (const state of ["stopping", "stopped", "starting", "terminated"])
      assert.equal(mayPredate(state, stop, NOW + 1, GRACE), false, state);
  });

  it("from the end of the grace period on, or with no record, the read is taken as it is", () => {
    assert.equal(mayPredate("stopped", start, NOW + GRACE, GRACE), false);
    assert.equal(mayPredate("stopped", undefined, NOW, GRACE), false);
  });

  it("once a GET has shown the command, a state it is sent from is real (someone undid it)", () => {
    assert.equal(mayPredate("stopped", { ...start, seen: true }, NOW + 1, GRACE), false);
  });

  it("a GET shows the command when it shows any state but those the command is sent from", () => {
    assert.equal(afterRead(start, "stopped").seen, false);
    for (const state of ["starting", "running", "upgrading", "stopping"])
      assert.equal(afterRead(start, state).seen, true);
    assert.equal(afterRead(stop, "idle").seen, false);
    assert.equal(afterRead(stop, "stopping").seen, true);
    assert.equal(afterRead({ ...start, seen: true }, "stopped").seen, true, "seen stays seen");
    assert.equal(start.seen, false, "a new value; the record given is not changed");
  });
});
