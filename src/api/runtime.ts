import { Agent } from "undici";
import type { Clock } from "./clock";
import { RateBudget, type RateLimit } from "./rateBudget";

/*
 * Process-wide state: one keep-alive dispatcher and one rate budget per key, shared by every
 * resource the provider host serves. It lives on globalThis under a Symbol.for key because
 * module-level state of a local module is copied into each serialized closure.
 */

/** The key's text; the Symbol is made inside the function (a module-level Symbol does not serialize). */
const RUNTIME_KEY_NAME = "pulumi-dbcloud.runtime.v1";

export interface ProcessRuntime {
  dispatchers: Map<string, Agent>;
  budgets: Map<string, RateBudget>;
  /** Stack config handed to the providers' `configure`, keyed `dbcloud:<name>`. */
  stackConfig: Map<string, string>;
}

export function processRuntime(): ProcessRuntime {
  const holder = globalThis as unknown as Record<symbol, ProcessRuntime | undefined>;
  const key = Symbol.for(RUNTIME_KEY_NAME);
  let runtime = holder[key];
  if (!runtime) {
    runtime = { dispatchers: new Map(), budgets: new Map(), stackConfig: new Map() };
    holder[key] = runtime;
  }
  return runtime;
}

export interface DispatcherTimeouts {
  connectMs: number;
  headersMs: number;
  bodyMs: number;
}

/** The shared keep-alive dispatcher for a set of timeouts. */
export function sharedDispatcher(timeouts: DispatcherTimeouts): Agent {
  const runtime = processRuntime();
  const key = `${timeouts.connectMs}/${timeouts.headersMs}/${timeouts.bodyMs}`;
  let agent = runtime.dispatchers.get(key);
  if (!agent) {
    agent = new Agent({
      connect: { timeout: timeouts.connectMs },
      headersTimeout: timeouts.headersMs,
      bodyTimeout: timeouts.bodyMs,
      keepAliveTimeout: 10_000,
      keepAliveMaxTimeout: 60_000,
    });
    runtime.dispatchers.set(key, agent);
  }
  return agent;
}

/** The shared budget of one key at one API (with one limit and clock). */
export function sharedBudget(apiUrl: string, keyId: string, limit: RateLimit, clock: Clock): RateBudget {
  const runtime = processRuntime();
  const key = `${apiUrl}|${keyId}|${limit.requests}/${limit.windowMs}`;
  let budget = runtime.budgets.get(key);
  if (!budget) {
    budget = new RateBudget(limit, clock);
    runtime.budgets.set(key, budget);
  }
  return budget;
}

/** Closes the shared dispatchers (tests and the demo call it so the process can exit). */
export async function closeSharedDispatchers(): Promise<void> {
  const runtime = processRuntime();
  const agents = [...runtime.dispatchers.values()];
  runtime.dispatchers.clear();
  await Promise.all(agents.map((agent) => agent.close()));
}
