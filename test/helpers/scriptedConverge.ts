import assert from "node:assert/strict";
import type { ApiClient } from "../../src/api/client";
import type { ServiceCommand } from "../../src/api/options";
import { ConflictError } from "../../src/api/errors";
import {
  ConvergeError,
  DEFAULT_TUNING,
  type ConvergeRequest,
  type ConvergeTuning,
} from "../../src/provider/converge";
import { virtualClock } from "./virtualClock";

/*
 * The converger's dependencies, scripted: an API client that answers from lists the test gives,
 * a virtual clock (nothing really waits), and a log that keeps its lines. For tests that assert
 * the requests made, the waits taken and the outcome of one converge.
 */

export const ORG = "3f2a1c9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b";
export const ID = "4a3b2c1d-0e9f-4a8b-8c7d-6e5f4a3b2c1d";

/** The per-call options the converger hands the client (a deadline, and its command bound or poll mark). */
export type ConvergeCallOptions = Parameters<ApiClient["changeServiceState"]>[3];

/** A state (of a service named "analytics"), the service's fields, or an error to throw. */
export type Answer = string | Error | { name?: string; state?: string };

/**
 * GET answers come from `gets` (the last one repeats); PATCH answers from `patches`. `tuning`
 * overrides DEFAULT_TUNING.
 */
export function scripted(gets: Answer[], patches: Answer[] = [], tuning: Partial<ConvergeTuning> = {}) {
  const calls: string[] = [];
  const { clock, sleeps, now, advance } = virtualClock();
  const answer = (value: Answer | undefined) => {
    if (value instanceof Error) throw value;
    const service =
      typeof value === "object" ? { id: ID, ...value } : { id: ID, name: "analytics", state: value };
    return { service, requestId: "r" };
  };
  const client = {
    async getService(_org?: string, _id?: string, _options?: ConvergeCallOptions) {
      calls.push("GET");
      return answer(gets.length > 1 ? gets.shift() : gets[0]);
    },
    // Like the real client: a PATCH is not sent once the converge's command bound is spent,
    // and every one sent counts against it unless the answer is a refusal (409).
    async changeServiceState(
      _org: string,
      _id: string,
      command: ServiceCommand,
      options: ConvergeCallOptions = {},
    ) {
      const bound = options.applyBudget;
      if (bound && bound.used >= bound.max) throw new Error("client refused: command bound spent");
      calls.push(`PATCH ${command}`);
      const next = patches.shift();
      if (bound && !(next instanceof ConflictError)) bound.used++;
      return answer(next);
    },
  };
  const info: string[] = [];
  const warn: string[] = [];
  const deps = {
    client,
    clock,
    log: { info: (l: string) => info.push(l), warn: (l: string) => warn.push(l) },
    tuning: { ...DEFAULT_TUNING, ...tuning },
  };
  return { deps, calls, sleeps, info, warn, now, advance };
}

/** A converge of service ID to running, waiting for it, within 20 minutes; `overrides` change any of it. */
export const request = (overrides: Partial<ConvergeRequest> = {}): ConvergeRequest => ({
  organizationId: ORG,
  serviceId: ID,
  desired: "running",
  timeoutMs: 1_200_000,
  waitForState: true,
  ...overrides,
});

/** The ConvergeError a converge must fail with (an assertion fails if it succeeds or fails otherwise). */
export async function convergeError(promise: Promise<unknown>): Promise<ConvergeError> {
  const error = await promise.then(
    () => assert.fail("expected a ConvergeError"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ConvergeError, String(error));
  return error;
}
