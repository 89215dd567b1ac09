import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { ServiceCommand } from "../../src/api/options";
import { RateBudget } from "../../src/api/rateBudget";
import { converge, DEFAULT_TUNING } from "../../src/provider/converge";
import { ORG, request, type ConvergeCallOptions } from "../helpers/scriptedConverge";
import { steppedClock } from "../helpers/steppedClock";

/*
 * A fleet started together on one budget of 1 request a second (stepped clock): real converges and
 * the real budget, against services that finish their transition a set time after their command.
 * The floor is max(3N, 2N + T) s: a read and a command each, then one poll each after its end.
 */

/** Converges services taking `transitionsMs` to running together; when each returned, and the requests sent. */
async function fleet(transitionsMs: number[]) {
  const { clock, now, runUntil } = steppedClock();
  const budget = new RateBudget({ requests: 1, windowMs: 1_000 }, clock, 0);
  const commandAt = new Map<string, number>();
  const ids: string[] = transitionsMs.map(() => randomUUID());
  const transitionOf = new Map(ids.map((id, i) => [id, transitionsMs[i]]));
  let requests = 0;
  const stateOf = (id: string) => {
    const at = commandAt.get(id);
    if (at === undefined) return "stopped";
    return now() >= at + transitionOf.get(id)! ? "running" : "starting";
  };
  const answer = (id: string) => ({ service: { id, name: "fleet", state: stateOf(id) }, requestId: "r" });
  const client = {
    async getService(_org: string, id: string, options?: ConvergeCallOptions) {
      await budget.take(options?.deadline, options?.poll);
      requests++;
      return answer(id);
    },
    async changeServiceState(_org: string, id: string, _c: ServiceCommand, options?: ConvergeCallOptions) {
      await budget.take(options?.deadline);
      requests++;
      if (options?.applyBudget) options.applyBudget.used++;
      commandAt.set(id, now());
      return answer(id);
    },
  };
  const deps = {
    client,
    clock,
    log: { info: () => undefined, warn: () => undefined },
    tuning: DEFAULT_TUNING,
  };
  const seenAt = new Map<string, number>();
  for (const serviceId of ids)
    void converge(request({ organizationId: ORG, serviceId }), deps).then(() => seenAt.set(serviceId, now()));
  await runUntil(() => seenAt.size === ids.length);
  assert.equal(seenAt.size, ids.length, "every converge returned");
  const late = ids.map((id) => seenAt.get(id)! - commandAt.get(id)! - transitionOf.get(id)!);
  return { doneAt: Math.max(...seenAt.values()), requests, late };
}

describe("fleet polls on a budget that binds (stepped clock)", function () {
  this.timeout(20_000);

  it("50 services with 60 s transitions end near the floor, spending about one poll each", async () => {
    const { doneAt, requests } = await fleet(Array(50).fill(60_000));
    const floorMs = Math.max(3 * 50, 2 * 50 + 60) * 1_000;
    assert.ok(doneAt <= 1.05 * floorMs, `done at ${doneAt / 1000} s, floor ${floorMs / 1000} s`);
    assert.ok(requests <= 3 * 50 + 15, `${requests} requests`);
  });

  it("a short transition among long ones that began earlier is still seen soon after its end", async () => {
    // Ten 300 s transitions, then two of 10 s whose commands go out last.
    const { late } = await fleet([...Array(10).fill(300_000), 10_000, 10_000]);
    const shortLate = late.slice(10);
    assert.ok(
      shortLate.every((ms) => ms <= 60_000),
      `short ones seen ${shortLate.map((ms) => ms / 1000)} s late`,
    );
  });
});
