// Fault-suite properties about bounds that a schedule of several actions would blur: memory
// under oversized bodies, liveness under 429 storms in every header form, and concurrent
// converges sharing one key's budget, their starts and the storms interleaved by fc.scheduler,
// also after a process on the key was killed with its requests queued in the budget file.
import assert from "node:assert/strict";
import fc from "fast-check";
import { ledgerPath } from "../../src/api/fileLedger";
import * as provider from "../../src/provider";
import type { RateLimitHeaderForm } from "../../src/emulator";
import { killWithQueue } from "../helpers/queuedWriter";
import { HEADER_FORMS } from "./faults";
import {
  commandsReached,
  countRetries,
  entriesSince,
  findLeaks,
  forbiddenCommands,
  FUZZ_SEED,
  heapIsMeasured,
  MAX_COMMANDS,
  runAction,
  runs,
  settledHeap,
  startWorld,
  totals,
  WALL_SLACK_MS,
} from "./harness";

/** Growth of the heap allowed while a body of tens of MB is refused (loose when gc cannot be forced). */
const HEAP_BOUND_BYTES = heapIsMeasured() ? 24 * 1024 * 1024 : 48 * 1024 * 1024;
/** Waits that HTTP dates and epoch seconds can only express in whole seconds. */
const COARSE: RateLimitHeaderForm[] = ["retry-after-date", "reset-epoch-seconds"];

const settings = (numRuns: number) => ({ seed: FUZZ_SEED, numRuns: runs(numRuns) });

function converge(organizationId: string, serviceId: string, state: string, timeoutSeconds: number) {
  return provider.serviceRunStateCreate({
    organizationId,
    serviceId,
    state,
    timeoutSeconds,
    waitForState: true,
    __provider: "serialized-provider-text",
  });
}

describe("fault suite: bounds", function () {
  this.timeout(600_000);

  it("an oversized body (200 or error, up to 64 MB) grows the heap by less than the bound", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(16, 64).map((mb) => mb * 1024 * 1024),
        fc.option(fc.constantFrom(500, 503), { nil: undefined }),
        async (oversizeBytes, status) => {
          const world = await startWorld();
          try {
            const { id } = world.emulator.addService({
              organizationId: world.organizationId,
              state: "running",
            });
            world.emulator.injectFault({ route: "getService", oversizeBytes, status, times: status ? 3 : 1 });
            const baseline = settledHeap();
            let peak = baseline;
            const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 2);
            const props = { organizationId: world.organizationId, serviceId: id, state: "running" };
            const result = await runAction(world, 30_000, () => provider.serviceRunStateRead(id, props));
            clearInterval(sampler);
            peak = Math.max(peak, process.memoryUsage().heapUsed);
            totals.runs++;
            totals.faults += entriesSince(world, id, 0).filter((e) => e.fault !== undefined).length;
            const grownMb = ((peak - baseline) / 1024 / 1024).toFixed(1);
            assert.ok(
              peak - baseline <= HEAP_BOUND_BYTES,
              `heap grew by ${grownMb} MB reading a ${oversizeBytes / 1024 / 1024} MB body (bound ${HEAP_BOUND_BYTES / 1024 / 1024} MB); ` +
                `outcome: ${result.error ? String((result.error as Error).message).slice(0, 200) : "read"}`,
            );
          } finally {
            await world.close();
          }
        },
      ),
      settings(4),
    );
  });

  it("a 429 storm in any header form is waited out while the deadline has room", async () => {
    const storm = fc.constantFrom(...HEADER_FORMS).chain((form) =>
      fc.record({
        form: fc.constant(form),
        answers: fc.integer({ min: 1, max: COARSE.includes(form) ? 3 : 10 }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(storm, async ({ form, answers }) => {
        const world = await startWorld();
        try {
          const { id } = world.emulator.addService({
            organizationId: world.organizationId,
            state: "stopped",
          });
          world.emulator.injectFault({
            status: 429,
            retryAfterSeconds: 0,
            rateLimitHeaders: form,
            times: answers,
          });
          const timeoutSeconds = 3 + answers;
          const result = await runAction(world, timeoutSeconds * 1000 + WALL_SLACK_MS, () =>
            converge(world.organizationId, id, "running", timeoutSeconds),
          );
          const entries = entriesSince(world, id, 0);
          totals.runs++;
          totals.faults += entries.filter((e) => e.fault !== undefined).length;
          totals.retries += countRetries(entries);
          assert.equal(
            result.error,
            undefined,
            `${answers} x 429 (${form}) with ${timeoutSeconds} s of deadline: ${String((result.error as Error)?.message)}`,
          );
        } finally {
          await world.close();
        }
      }),
      settings(10),
    );
  });

  /**
   * Converges sharing one key's budget, their starts and the 429 storms interleaved; with
   * `killedWriter`, a process of this user on the same key was killed with SIGKILL just before,
   * its requests still queued in the budget file for longer than the converges' deadline.
   */
  function raceProperty(storms: boolean, killedWriter = false) {
    const storm = fc.record({
      form: fc.constantFrom(...(storms ? HEADER_FORMS : (["both"] as RateLimitHeaderForm[]))),
      answers: fc.integer({ min: 1, max: storms ? 10 : 2 }),
    });
    return fc.asyncProperty(
      fc.scheduler(),
      fc.array(fc.constantFrom("running", "stopped"), { minLength: 2, maxLength: 4 }),
      fc.array(storm, { maxLength: 2 }),
      async (s, targets, bursts) => {
        // One key, a server limit of 6 per second, and the client's shared budget set to match.
        const world = await startWorld({
          rateLimit: { requests: 6, windowMs: 1000 },
          clientRateLimit: "6/1s",
        });
        try {
          const ids = targets.map((target) => {
            const first = target === "running" ? "stopped" : "running";
            return world.emulator.addService({ organizationId: world.organizationId, state: first }).id;
          });
          const timeoutSeconds = 8;
          if (killedWriter) {
            const limit = { requests: 6, windowMs: 1000 };
            const path = ledgerPath(world.emulator.url, world.emulator.keyId, limit);
            await killWithQueue(path, limit, limit.requests * (timeoutSeconds + 2));
          }
          const startedAt = Date.now();
          const converges = targets.map((target, index) =>
            s
              .schedule(Promise.resolve(index))
              .then(() =>
                runAction(world, timeoutSeconds * 1000 + WALL_SLACK_MS, () =>
                  converge(world.organizationId, ids[index], target, timeoutSeconds),
                ),
              ),
          );
          const injections = bursts.map((burst) =>
            s.schedule(Promise.resolve(burst)).then(() =>
              world.emulator.injectFault({
                status: 429,
                retryAfterSeconds: 0,
                rateLimitHeaders: burst.form,
                times: burst.answers,
              }),
            ),
          );
          await s.waitAll();
          const results = await Promise.all(converges);
          await Promise.all(injections);
          const problems: string[] = [];
          results.forEach((result, index) => {
            const entries = entriesSince(world, ids[index], 0);
            totals.runs++;
            totals.retries += countRetries(entries);
            totals.faults += entries.filter((e) => e.fault !== undefined || e.rateLimited).length;
            if (result.error !== undefined)
              problems.push(
                `converge ${index} to ${targets[index]} failed: ${String((result.error as Error).message).slice(0, 200)}`,
              );
            problems.push(...forbiddenCommands(entries, targets[index] as "running" | "stopped"));
            if (commandsReached(entries).length > MAX_COMMANDS)
              problems.push(`converge ${index}: more than ${MAX_COMMANDS} PATCHes`);
            const leaks = [
              ...findLeaks(world, "error", result.error),
              ...findLeaks(world, "stdout", result.stdout),
            ];
            totals.leaks += leaks.length;
            problems.push(...leaks);
          });
          const elapsed = Date.now() - startedAt;
          if (elapsed > timeoutSeconds * 1000 + WALL_SLACK_MS) problems.push(`took ${elapsed} ms`);
          assert.deepEqual(
            problems,
            [],
            `${problems.join("\n")}\nschedule: ${s
              .report()
              .map((t) => t.label)
              .join(", ")}`,
          );
        } finally {
          await world.close();
        }
      },
    );
  }

  it("concurrent converges sharing one key's budget and the server's limit all converge", async () => {
    await fc.assert(raceProperty(false), settings(3));
  });

  it("concurrent converges sharing one key all converge through 429 storms in every header form", async () => {
    await fc.assert(raceProperty(true), settings(3));
  });

  it("concurrent converges on a key whose budget file holds a killed process's queue all converge", async () => {
    await fc.assert(raceProperty(false, true), settings(2));
  });
});
