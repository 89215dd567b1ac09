import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import * as provider from "../../src/provider";
import type { ProviderFixture } from "../helpers/providerFixture";
import { runStateEachTest, type Props } from "../helpers/runStateEmulator";

// ServiceRunState check and diff as the host calls them: what replaces, what updates, unknown
// values during preview, the defaults and every bad input named; the emulator shows which of
// them send a request.

const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

describe("ServiceRunState against the emulator", function () {
  this.timeout(30_000);
  const rig = runStateEachTest();
  const { seed, checked } = rig;
  let fixture: ProviderFixture;
  beforeEach(() => {
    fixture = rig.fixture;
  });

  describe("diff", () => {
    const outs = (over: Props = {}): Props => ({
      organizationId: "11111111-1111-4111-8111-111111111111",
      serviceId: "22222222-2222-4222-8222-222222222222",
      state: "running",
      timeoutSeconds: 1200,
      waitForState: true,
      observedState: "running",
      ...over,
    });
    const news = (over: Props = {}): Props => {
      const { observedState: _observed, ...inputs } = outs(over);
      return inputs;
    };

    it("replaces on organizationId or serviceId change", async () => {
      const d = await provider.serviceRunStateDiff(
        "x",
        outs(),
        news({ serviceId: "33333333-3333-4333-8333-333333333333" }),
      );
      assert.deepEqual(d.replaces, ["serviceId"]);
      const o = await provider.serviceRunStateDiff(
        "x",
        outs(),
        news({ organizationId: "44444444-4444-4444-8444-444444444444" }),
      );
      assert.deepEqual(o.replaces, ["organizationId"]);
    });

    it("updates on a desired state change, and not at all when converged", async () => {
      assert.equal(
        (await provider.serviceRunStateDiff("x", outs(), news({ state: "stopped" }))).changes,
        true,
      );
      assert.equal((await provider.serviceRunStateDiff("x", outs(), news())).changes, false);
    });

    it("treats unknown values as possible changes", async () => {
      const d = await provider.serviceRunStateDiff("x", outs(), news({ serviceId: UNKNOWN, state: UNKNOWN }));
      assert.equal(d.changes, true);
      assert.deepEqual(d.replaces, ["serviceId"]);
    });

    it("an option-only change is an update that makes no API call", async () => {
      const id = seed("running");
      const { outs: created } = await provider.serviceRunStateCreate(
        await checked({ serviceId: id, state: "running" }),
      );
      fixture.emulator.clearRequests();
      const changed = await checked({
        serviceId: id,
        state: "running",
        timeoutSeconds: 60,
        waitForState: false,
      });
      assert.equal(
        (await provider.serviceRunStateDiff(id, created as unknown as Props, changed)).changes,
        true,
      );
      const { outs: updated } = await provider.serviceRunStateUpdate(
        id,
        created as unknown as Props,
        changed,
      );
      assert.equal(updated.timeoutSeconds, 60);
      assert.equal(updated.waitForState, false);
      assert.equal(updated.serviceName, "analytics");
      assert.equal(fixture.emulator.requests.length, 0);
    });
  });

  describe("check", () => {
    it("reports every bad input with its property, before any request", async () => {
      const { failures } = await provider.serviceRunStateCheck(
        {},
        { organizationId: "org", serviceId: "x", state: "paused", timeoutSeconds: -1, waitForState: "yes" },
      );
      assert.deepEqual(failures.map((f) => f.property).sort(), [
        "organizationId",
        "serviceId",
        "state",
        "timeoutSeconds",
        "waitForState",
      ]);
      assert.match(
        failures.find((f) => f.property === "state")!.reason,
        /"running" or "stopped" \(got "paused"\)/,
      );
      assert.equal(fixture.emulator.requests.length, 0);
    });

    it("rejects a zero or a huge timeout, and a missing state", async () => {
      for (const timeoutSeconds of [0, 100_000]) {
        const { failures } = await provider.serviceRunStateCheck(
          {},
          { serviceId: randomUUID(), state: "running", timeoutSeconds },
        );
        assert.deepEqual(
          failures.map((f) => f.property),
          ["timeoutSeconds"],
        );
      }
      const { failures } = await provider.serviceRunStateCheck({}, { serviceId: randomUUID() });
      assert.deepEqual(failures, [{ property: "state", reason: "state is required" }]);
    });

    it("fills the defaults: timeout 1200, waitForState true, organizationId from the configuration", async () => {
      const { inputs } = await provider.serviceRunStateCheck(
        {},
        { serviceId: randomUUID(), state: "running" },
      );
      assert.equal(inputs.timeoutSeconds, 1200);
      assert.equal(inputs.waitForState, true);
      assert.equal(inputs.organizationId, fixture.organizationId);
    });

    it("lets values unknown during preview pass", async () => {
      const { failures } = await provider.serviceRunStateCheck(
        {},
        { serviceId: UNKNOWN, state: UNKNOWN, organizationId: UNKNOWN },
      );
      assert.deepEqual(failures, []);
    });
  });
});
