import { createHash } from "node:crypto";
import { Agent } from "undici";
import { systemClock, type Clock } from "./clock";
import { FileLedger, ledgerPath } from "./fileLedger";
import { RateBudget } from "./rateBudget";
import { budgetHash, type RateLimit } from "./rateLimit";
import type { StoreAddress } from "./storeAddress";
import { storeBudget } from "./storeBudget";

/*
 * Dispatchers and budgets live on globalThis, not in this module: every copy of the package in one
 * process (two versions, or source and build in the tests) shares one budget per key, as the server counts.
 */
const SHARED_KEY = Symbol.for("pulumi-dbcloud.shared.v1");

type Shared = { dispatchers: Map<string, Agent>; budgets: Map<string, RateBudget> };

function sharedState(): Shared {
  const holder = globalThis as unknown as Record<symbol, Shared | undefined>;
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

function getOrMake<T>(map: Map<string, T>, key: string, make: () => T): T {
  if (!map.has(key)) map.set(key, make());
  return map.get(key)!;
}

export function sharedDispatcher(timeouts: DispatcherTimeouts): Agent {
  const { connectMs, headersMs, bodyMs } = timeouts;
  return getOrMake(sharedState().dispatchers, `${connectMs}/${headersMs}/${bodyMs}`, () => {
    const bounds = { connect: { timeout: connectMs }, headersTimeout: headersMs, bodyTimeout: bodyMs };
    return new Agent({ ...bounds, keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000 });
  });
}

/**
 * The shared budget of one key at one API, limit and clock; on the system clock also shared with this
 * user's other processes through a file, and with every machine on the key through `store` if given.
 */
export function sharedBudget(
  apiUrl: string,
  keyId: string,
  limit: RateLimit,
  clock: Clock,
  store?: StoreAddress,
): RateBudget {
  // Each store address, credentials included, has a connection of its own: a client with a wrong
  // password must not ride on another's. A hash keeps the password out of the table.
  const storeKey = store ? createHash("sha256").update(store.url).digest("hex") : "";
  return getOrMake(sharedState().budgets, `${budgetHash(apiUrl, keyId, limit)}|${storeKey}`, () => {
    if (clock !== systemClock) return new RateBudget(limit, clock);
    const path = ledgerPath(apiUrl, keyId, limit);
    const file = new FileLedger(path, { limit, now: clock.now, wallNow: Date.now });
    if (store) return storeBudget(apiUrl, keyId, limit, file, store);
    return new RateBudget(limit, clock, undefined, file);
  });
}

/** Closes the shared dispatchers (tests and the demo call it so the process can exit at once). */
export async function closeSharedDispatchers(): Promise<void> {
  const { dispatchers } = sharedState();
  const agents = [...dispatchers.values()];
  dispatchers.clear();
  await Promise.all(agents.map((agent) => agent.close()));
}
