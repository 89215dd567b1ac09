// The emulator's rate limit and request log over real HTTP: 429s with their reset headers, and
// what each request leaves in the log.
import assert from "node:assert/strict";
import { startEmulator, type Emulator } from "../../src/emulator";
import { assertErrorEnvelope, callEmulator as call, seededEmulatorEachTest } from "../helpers/emulatorHttp";

describe("emulator API", () => {
  const seeded = seededEmulatorEachTest();
  const { organizationId, serviceId, servicePath } = seeded;
  let emulator: Emulator;
  beforeEach(() => (emulator = seeded.emulator));

  describe("rate limit", () => {
    /** The reset a window of `windowMs` names 180 ms into it, in both headers. */
    async function resetAfter180Ms(windowMs: number): Promise<string | null> {
      let clock = 5_000_000;
      const limited = await startEmulator({
        now: () => clock,
        rateLimit: { requests: 1, windowMs },
        services: [{ organizationId, id: serviceId }],
      });
      try {
        assert.equal((await call(limited, "GET", servicePath)).status, 200);
        clock += 180;
        const refused = await call(limited, "GET", servicePath);
        assert.equal(refused.status, 429);
        assert.equal(refused.headers.get("retry-after"), refused.headers.get("x-ratelimit-reset"));
        return refused.headers.get("x-ratelimit-reset");
      } finally {
        await limited.close();
      }
    }

    it("gives a window that is not whole seconds (a scaled one) its reset in milliseconds, not a whole second", async () => {
      assert.equal(await resetAfter180Ms(500), "0.32");
    });

    it("rounds a scaled whole-second window's reset up to a tenth of it, as the real 10 s window's to a second", async () => {
      assert.equal(await resetAfter180Ms(1_000), "0.9", "820 ms left, rounded up to 900");
    });

    it("answers 429 with Retry-After and X-RateLimit-Reset past the budget, and recovers after the window", async () => {
      let clock = 5_000_000;
      const limited = await startEmulator({
        now: () => clock,
        rateLimit: { requests: 3, windowMs: 10_000 },
        services: [{ organizationId, id: serviceId }],
      });
      try {
        // Unauthenticated requests are refused before they can spend the key's budget.
        assert.equal((await call(limited, "GET", servicePath, { authorization: null })).status, 401);
        for (let index = 0; index < 3; index += 1)
          assert.equal((await call(limited, "GET", servicePath)).status, 200);
        clock += 1_500;
        const refused = await call(limited, "GET", servicePath);
        assertErrorEnvelope(refused, 429, "TOO_MANY_REQUESTS");
        assert.equal(refused.headers.get("retry-after"), "9");
        assert.equal(refused.headers.get("x-ratelimit-reset"), "9");
        // Refused requests change nothing.
        const patch = await call(limited, "PATCH", `${servicePath}/state`, { body: { command: "stop" } });
        assert.equal(patch.status, 429);
        assert.equal(limited.service(serviceId)?.state, "running");
        clock += 8_499;
        assert.equal((await call(limited, "GET", servicePath)).headers.get("retry-after"), "1");
        clock += 1;
        assert.equal((await call(limited, "GET", servicePath)).status, 200);
        const rateLimited = limited.requests.filter((entry) => entry.rateLimited);
        assert.equal(rateLimited.length, 3);
        assert.ok(rateLimited.every((entry) => entry.status === 429 && entry.authorized));
        limited.setRateLimit(false);
        for (let index = 0; index < 5; index += 1)
          assert.equal((await call(limited, "GET", servicePath)).status, 200);
      } finally {
        await limited.close();
      }
    });
  });

  describe("request log", () => {
    it("records API requests in order with route, ids, command, status and true states", async () => {
      await call(emulator, "GET", servicePath);
      await call(emulator, "PATCH", `${servicePath}/state`, { body: { command: "stop" } });
      await call(emulator, "DELETE", `${servicePath}/pipesReversePrivateEndpoints/rpe-1`);
      await call(emulator, "GET", servicePath, { authorization: null });
      await fetch(`${emulator.url}/_emulator/requests`);
      const log = emulator.requests;
      assert.equal(log.length, 4);
      assert.deepEqual(
        log.map((entry) => entry.seq),
        [1, 2, 3, 4],
      );
      assert.ok(log.every((entry) => typeof entry.at === "number" && entry.at > 0));
      assert.deepEqual(log[0], {
        ...log[0],
        method: "GET",
        path: servicePath,
        route: "getService",
        organizationId,
        serviceId,
        status: 200,
        stateBefore: "running",
        stateAfter: "running",
        authorized: true,
      });
      assert.equal(log[1].route, "changeState");
      assert.equal(log[1].command, "stop");
      assert.equal(log[1].stateBefore, "running");
      assert.equal(log[1].stateAfter, "stopping");
      assert.equal(log[2].route, "deleteEndpoint");
      assert.equal(log[2].endpointId, "rpe-1");
      assert.equal(log[2].status, 200);
      assert.equal(log[3].status, 401);
      assert.equal(log[3].authorized, false);
      assert.equal(log[3].fault, undefined);
      emulator.clearRequests();
      assert.equal(emulator.requests.length, 0);
      await call(emulator, "GET", servicePath);
      assert.equal(emulator.requests[0].seq, 5);
    });

    it("uses the injected clock for entry times", async () => {
      const clocked = await startEmulator({
        now: () => 42_000,
        services: [{ organizationId, id: serviceId }],
      });
      try {
        await call(clocked, "GET", servicePath);
        assert.equal(clocked.requests[0].at, 42_000);
      } finally {
        await clocked.close();
      }
    });
  });
});
