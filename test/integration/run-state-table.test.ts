import assert from "node:assert/strict";
import * as provider from "../../src/provider";
import type { ProviderFixture } from "../helpers/providerFixture";
import { runStateEachTest } from "../helpers/runStateEmulator";

// ServiceRunState create from every state the API names, to both targets, against the emulator
// (helpers/runStateEmulator.ts): the commands sent and the state it ends in, or the refusal.

describe("ServiceRunState against the emulator", function () {
  this.timeout(30_000);
  const rig = runStateEachTest();
  const { seed, checked, requests, patches } = rig;
  let fixture: ProviderFixture;
  beforeEach(() => {
    fixture = rig.fixture;
  });

  describe("every API state x both targets", () => {
    const settles: Record<string, string> = {
      starting: "running",
      awaking: "running",
      provisioning: "running",
      partially_running: "running",
      stopping: "stopped",
    };
    const cases: [string, "running" | "stopped", string[] | RegExp][] = [
      ["running", "running", []],
      ["idle", "running", []],
      ["degraded", "running", []],
      ["stopped", "running", ["PATCH start"]],
      ["running", "stopped", ["PATCH stop"]],
      ["idle", "stopped", ["PATCH stop"]],
      ["degraded", "stopped", ["PATCH stop"]],
      ["stopped", "stopped", []],
      ["starting", "running", []],
      ["awaking", "running", []],
      ["provisioning", "running", []],
      ["partially_running", "running", []],
      ["starting", "stopped", ["PATCH stop"]],
      ["awaking", "stopped", ["PATCH stop"]],
      ["provisioning", "stopped", ["PATCH stop"]],
      ["partially_running", "stopped", ["PATCH stop"]],
      ["stopping", "running", ["PATCH start"]],
      ["stopping", "stopped", []],
      ["terminating", "running", /terminating: it cannot be made running/],
      ["terminated", "stopped", /terminated: it cannot be made stopped/],
      ["failed", "running", /failed: it cannot be made running/],
      ["softdeleting", "stopped", /softdeleting/],
      ["softdeleted", "running", /softdeleted/],
    ];
    for (const [state, target, expected] of cases) {
      it(`${state} → ${target}: ${expected instanceof RegExp ? "clear error, no command" : expected.join(", ") || "no command"}`, async () => {
        const id = seed(state, settles[state] ? { state: settles[state], afterMs: 150 } : undefined);
        const inputs = await checked({ serviceId: id, state: target });
        if (expected instanceof RegExp) {
          await assert.rejects(provider.serviceRunStateCreate(inputs), expected);
          assert.deepEqual(requests(id), ["GET"]);
          return;
        }
        const { id: resourceId, outs } = await provider.serviceRunStateCreate(inputs);
        assert.equal(resourceId, id);
        assert.deepEqual(patches(id), expected);
        assert.equal(requests(id)[0], "GET", "GET first");
        const settled = target === "running" ? ["running", "idle", "degraded"] : ["stopped"];
        assert.ok(settled.includes(outs.observedState), `observed ${outs.observedState}`);
        assert.equal(fixture.emulator.service(id)?.state, outs.observedState);
      });
    }

    it("an unknown state: waits, then fails at the deadline naming it, no command", async () => {
      const id = seed("upgrading");
      const inputs = await checked({ serviceId: id, state: "running", timeoutSeconds: 0.3 });
      await assert.rejects(
        provider.serviceRunStateCreate(inputs),
        /it is upgrading \(a state this provider does not know\)/,
      );
      assert.ok(requests(id).length > 1, "it polled");
      assert.deepEqual(patches(id), []);
    });
  });
});
