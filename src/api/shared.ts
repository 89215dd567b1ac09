import { Agent } from "undici";
import { systemClock, type Clock } from "./clock";
import { FileLedger, ledgerPath } from "./fileLedger";
import { RateBudget } from "./rateBudget";
import type { RateLimit } from "./rateLimit";

/*
 * Process-wide state: one keep-alive dispatcher per set of timeouts and one rate budget per key,
 * shared by every client in the process. It lives on globalThis under a Symbol.for key rather than
 * in this module, so that every copy of the package loaded into one process (two installed
 * versions side by side, or the source and the build in the tests) shares the same budget: the
 * server counts requests per key, not per module.
 */

interface SharedState {
  dispatchers: Map<string, Agent>;
  budgets: Map<string, RateBudget>;
}

const SHARED_KEY = Symbol.for("pulumi-dbcloud.shared.v1");

function sharedState(): SharedState {
  const holder = globalThis as unknown as Record<symbol, SharedState | undefined>;
  return (holder[SHARED_KEY] ??= { dispatchers: new Map(), budgets: new Map() });
}

/** The keep-alive dispatcher's own timeouts, in ms. */
export interface DispatcherTimeouts {
  /** Establishing the connection (TCP and TLS). */
  connectMs: number;
  /** From the request sent to the response headers. */
  headersMs: number;
  /** Between two chunks of the body (idle time, not the whole body: see `AttemptTimeouts.totalMs`). */
  bodyMs: number;
}

/** The shared keep-alive dispatcher for a set of timeouts. */
export function sharedDispatcher(timeouts: DispatcherTimeouts): Agent {
  const { dispatchers } = sharedState();
  const key = `${timeouts.connectMs}/${timeouts.headersMs}/${timeouts.bodyMs}`;
  let agent = dispatchers.get(key);
  if (!agent) {
    agent = new Agent({
      connect: { timeout: timeouts.connectMs },
      headersTimeout: timeouts.headersMs,
      bodyTimeout: timeouts.bodyMs,
      keepAliveTimeout: 10_000,
      keepAliveMaxTimeout: 60_000,
    });
    dispatchers.set(key, agent);
  }
  return agent;
}

/**
 * The shared budget of one key at one API (with one limit and clock): one per process, and on
 * the system clock also shared with this user's other processes on this machine through a file.
 */
export function sharedBudget(apiUrl: string, keyId: string, limit: RateLimit, clock: Clock): RateBudget {
  const { budgets } = sharedState();
  const key = `${apiUrl}|${keyId}|${limit.requests}/${limit.windowMs}`;
  let budget = budgets.get(key);
  if (!budget) {
    // On the system clock, the state lives in a file every process using this key shares; its
    // times are this clock's plus the offset to the wall clock, which every process agrees on.
    const ledger =
      clock === systemClock
        ? new FileLedger(ledgerPath(apiUrl, keyId, limit), {
            offsetMs: Date.now() - clock.now(),
            now: clock.now,
          })
        : undefined;
    budget = new RateBudget(limit, clock, undefined, ledger);
    budgets.set(key, budget);
  }
  return budget;
}

/** Closes the shared dispatchers (tests and the demo call it so the process can exit at once). */
export async function closeSharedDispatchers(): Promise<void> {
  const { dispatchers } = sharedState();
  const agents = [...dispatchers.values()];
  dispatchers.clear();
  await Promise.all(agents.map((agent) => agent.close()));
}
