import assert from "node:assert/strict";
import { decide, KNOWN_STATES, satisfies, sentFrom, type Decision } from "../../src/provider/stateTable";

// The state table of the README and design, row by row: observed state x desired state.
const TABLE: [
  string,
  Decision["action"] | "wait:transition" | "wait:conflicting" | "wait:unknown",
  string,
][] = [
  // state, desired running, desired stopped
  ["running", "satisfied", "stop"],
  ["idle", "satisfied", "stop"],
  ["degraded", "satisfied", "stop"],
  ["stopped", "start", "satisfied"],
  ["starting", "wait:transition", "wait:conflicting"],
  ["awaking", "wait:transition", "wait:conflicting"],
  ["provisioning", "wait:transition", "wait:conflicting"],
  ["partially_running", "wait:transition", "wait:conflicting"],
  ["stopping", "wait:conflicting", "wait:transition"],
  ["terminating", "fail", "fail"],
  ["terminated", "fail", "fail"],
  ["failed", "fail", "fail"],
  ["softdeleting", "fail", "fail"],
  ["softdeleted", "fail", "fail"],
  ["upgrading", "wait:unknown", "wait:unknown"],
  ["", "wait:unknown", "wait:unknown"],
];

function label(decision: Decision): string {
  if (decision.action !== "wait") return decision.action;
  return decision.reason === "conflicting-transition" ? "wait:conflicting" : `wait:${decision.reason}`;
}

describe("state table", () => {
  for (const [state, running, stopped] of TABLE) {
    it(`${state || "(no state)"}: running → ${running}, stopped → ${stopped}`, () => {
      assert.equal(label(decide(state, "running")), running);
      assert.equal(label(decide(state, "stopped")), stopped);
    });
  }

  it("knows exactly the states the table names (every other state is an unknown one)", () => {
    const named = TABLE.filter(([, running]) => running !== "wait:unknown").map(([state]) => state);
    assert.deepEqual([...KNOWN_STATES].sort(), named.sort());
  });

  it("warns on degraded and only there", () => {
    for (const [state] of TABLE) {
      const decision = decide(state, "running");
      const warned = decision.action === "satisfied" && decision.warning !== undefined;
      assert.equal(warned, state === "degraded", state);
    }
  });

  it("explains terminal states with the state, the target and what to do", () => {
    const decision = decide("softdeleted", "running");
    assert.equal(decision.action, "fail");
    assert.match((decision as { reason: string }).reason, /softdeleted.*cannot be made running/);
    assert.match(
      (decision as { reason: string }).reason,
      /Remove this resource from the program, or point it at another service\.$/,
      "and says what to do",
    );
  });

  it("satisfies() agrees with the table, and an unknown observed state satisfies nothing", () => {
    assert.equal(satisfies("idle", "running"), true);
    assert.equal(satisfies("degraded", "running"), true);
    assert.equal(satisfies("stopped", "running"), false);
    assert.equal(satisfies("stopped", "stopped"), true);
    assert.equal(satisfies("idle", "stopped"), false);
    assert.equal(satisfies(undefined, "running"), false);
    assert.equal(satisfies("upgrading", "stopped"), false);
  });

  it("sentFrom(): start is sent from stopped only, stop from running, idle and degraded (what a stale GET may show)", () => {
    const from = (command: "start" | "stop") =>
      TABLE.map(([state]) => state).filter((s) => sentFrom(s, command));
    assert.deepEqual(from("start"), ["stopped"]);
    assert.deepEqual(from("stop"), ["running", "idle", "degraded"]);
  });
});
