import type { Clock } from "../../src/api/clock";
import { FileLedger, ledgerPath } from "../../src/api/fileLedger";
import { RateBudget } from "../../src/api/rateBudget";
import { steppedClock } from "./steppedClock";

/** One request a window: pacing and the window agree, so the tests read simply. */
export const limit = { requests: 1, windowMs: 60_000 };
export const realClock: Clock = { now: () => Date.now(), sleep: async () => undefined };

/** A rate budget sharing its grants through the file at `path`. */
export const budgetOn = (path: string, clock = realClock, on = limit) =>
  new RateBudget(on, clock, 0, new FileLedger(path, { limit: on, now: clock.now }));

/**
 * A file under `dir` for processes to share, and a stepped clock near the real time (so the file
 * keeps a pause: an expired one is dropped with it); `base` is the real time at the clock's zero.
 */
export function sharedFileOnSteppedClock(dir: string) {
  const stepped = steppedClock();
  const base = Date.now();
  const clock: Clock = { now: () => base + stepped.now(), sleep: stepped.clock.sleep };
  return { path: ledgerPath("http://127.0.0.1:1", "key", limit, dir), stepped, base, clock };
}

/** A ledger and what it says: it warns once, when it gives the file up for memory. */
export function watched(path: string) {
  const warnings: string[] = [];
  return { ledger: new FileLedger(path, { limit, warn: (message) => warnings.push(message) }), warnings };
}
