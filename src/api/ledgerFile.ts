import { createHash } from "node:crypto";
import { readlinkSync } from "node:fs";
import { hostname } from "node:os";
import { ratePerWindow } from "./adaptiveRate";
import { emptyState, type LedgerState } from "./ledger";
import type { RateLimit } from "./rateLimit";

/*
 * What a budget file holds and which of it still counts. Every time in the file is wall-clock
 * time (epoch ms): the processes sharing it started at different moments, and only the wall
 * clock is one timeline for all of them. So a file can lie about time in ways a process's own
 * memory cannot: its writer may have died with requests still queued, or written while the wall
 * clock ran ahead. Reading it, nothing that no live writer accounts for holds a request back
 * longer than the window the file describes.
 */

/** The most grants a file may hold (reservations of waiting requests included). */
export const MAX_GRANTS = 2_000;
/** A lock held this long (a clock set back, a lock that cannot be broken) makes a process give up on the file. */
export const LOCK_GIVE_UP_MS = 2_000;
/** A wall clock this far from where a process expects it was stepped (NTP, a resumed VM, a hand). */
export const WALL_STEP_MS = 1_000;

const finite = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

/**
 * This machine as its processes see it: pids are compared only between writers that share it
 * (a container with its own pid namespace may share the folder, but not the pids).
 */
const MACHINE = (() => {
  let namespace = "";
  try {
    namespace = readlinkSync("/proc/self/ns/pid");
  } catch {
    // No procfs: the host name alone tells machines apart.
  }
  return createHash("sha256").update(`${hostname()}\n${namespace}`).digest("hex").slice(0, 12);
})();

/** The writer id of this process: its machine and pid. */
export const SELF = `${MACHINE}/${process.pid}`;

/** A budget file's content: the state, who wrote each grant, and when each writer last wrote. */
export interface LedgerFile {
  /** In wall-clock times. */
  state: LedgerState;
  /** The writer of each grant, in the grants' order ("" when the file does not say). */
  owners: string[];
  /** Each writer's last write, wall-clock time. */
  seen: Map<string, number>;
  /** When the file was written, wall-clock time, if it says. */
  writtenAt: number | undefined;
}

/** The content of a file's `text`, checked field by field: a damaged file reads as empty. */
export function parseLedgerFile(text: string): LedgerFile {
  const empty: LedgerFile = { state: emptyState(), owners: [], seen: new Map(), writtenAt: undefined };
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return empty;
  }
  if (typeof value !== "object" || value === null) return empty;
  const time = (raw: unknown) => (finite(raw) ? raw : 0);
  const rawGrants = Array.isArray(value.grants) ? (value.grants as unknown[]).slice(0, MAX_GRANTS) : [];
  const rawOwners = Array.isArray(value.owners) ? (value.owners as unknown[]) : [];
  const entries = rawGrants
    .map((at, index) => ({ at, owner: typeof rawOwners[index] === "string" ? rawOwners[index] : "" }))
    .filter((entry): entry is { at: number; owner: string } => finite(entry.at))
    .sort((a, b) => a.at - b.at);
  const seen = new Map<string, number>();
  const rawSeen = value.seen;
  if (typeof rawSeen === "object" && rawSeen !== null && !Array.isArray(rawSeen)) {
    for (const [owner, at] of Object.entries(rawSeen).slice(0, MAX_GRANTS))
      if (finite(at)) seen.set(owner, at);
  }
  const bids = (Array.isArray(value.bids) ? (value.bids as Record<string, unknown>[]) : [])
    .slice(0, MAX_GRANTS)
    .filter((bid) => typeof bid?.id === "string" && bid.id.length <= 64 && finite(bid.key) && finite(bid.at))
    .map((bid) => ({ id: bid.id as string, key: bid.key as number, at: bid.at as number }));
  const throttle = value.throttle as Record<string, unknown> | undefined;
  const share = finite(throttle?.share) && throttle.share > 0 ? throttle.share : undefined;
  return {
    state: {
      grants: entries.map((entry) => entry.at),
      blockedUntil: time(value.blockedUntil),
      paceAt: time(value.paceAt),
      pauses: Number.isSafeInteger(value.pauses) ? (value.pauses as number) : 0,
      throttle:
        throttle && finite(throttle.at) && share !== undefined
          ? { at: throttle.at, share, recover: finite(throttle.recover) ? throttle.recover : share }
          : undefined,
      bids,
    },
    owners: entries.map((entry) => entry.owner),
    seen,
    writtenAt: finite(value.writtenAt) ? value.writtenAt : undefined,
  };
}

/** The file's text, or undefined when nothing in it still matters at `now`. */
export function formatLedgerFile(file: LedgerFile, now: number): string | undefined {
  const { state, owners } = file;
  const idle = !state.grants.length && !state.bids.length && !state.throttle;
  if (idle && state.blockedUntil <= now && state.paceAt <= now) return;
  const seen: Record<string, number> = {};
  for (const owner of new Set(owners)) {
    const at = file.seen.get(owner);
    if (owner && at !== undefined) seen[owner] = at;
  }
  return JSON.stringify({
    writtenAt: now,
    grants: state.grants.slice(-MAX_GRANTS),
    owners: owners.slice(-MAX_GRANTS),
    seen,
    blockedUntil: state.blockedUntil,
    paceAt: state.paceAt,
    pauses: state.pauses,
    throttle: state.throttle,
    bids: state.bids.slice(-MAX_GRANTS),
  });
}

/** Whether process `pid` of this machine is gone; one of another machine cannot be asked. */
function isDeadHere(owner: string): boolean {
  const [machine, pid] = owner.split("/");
  if (machine !== MACHINE || !/^\d{1,10}$/.test(pid ?? "") || Number(pid) === process.pid) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/**
 * Applies to `file` (wall-clock times) at wall time `now` what a reader must not believe:
 *
 * - A file written after `now` was written while the wall clock ran ahead: every time in it moves
 *   back by as much, so its grants count as now, not as an hour from now.
 * - A writer that is gone leaves its reservations: a dead process of this machine, or one that let
 *   a reservation fall due a window ago (plus the longest a lock holds a live one back) without
 *   writing since, which no live request does, since each writes as it goes. Its grants dated
 *   after its last write were never sent: they are dropped. Those before it may have been: they count.
 * - Nothing else holds a request back past the window: a pause ends within a window, the pacing
 *   is at most one step after the last grant (or the pause), and a grant whose writer the file
 *   does not name (a damaged file, an older version's) counts as now at the latest; a poll's bid
 *   dated after now is dropped (the others lapse within two slots of being said).
 */
export function believable(file: LedgerFile, limit: RateLimit, now: number): void {
  const skew = (file.writtenAt ?? now) - now;
  if (skew > WALL_STEP_MS) shiftBack(file, skew);
  const { state, seen } = file;
  const graceMs = limit.windowMs + LOCK_GIVE_UP_MS;
  const overdue = new Set<string>();
  state.grants.forEach((at, index) => {
    const owner = file.owners[index];
    if (owner && owner !== SELF && at <= now - graceMs && at > (seen.get(owner) ?? -Infinity))
      overdue.add(owner);
  });
  const gone = new Set([...new Set(file.owners)].filter((owner) => overdue.has(owner) || isDeadHere(owner)));
  const kept = state.grants
    .map((at, index) => ({ at, owner: file.owners[index] }))
    .filter(({ at, owner }) => !gone.has(owner) || at <= (seen.get(owner) ?? -Infinity))
    .map(({ at, owner }) => ({ at: owner ? at : Math.min(at, now), owner }))
    .sort((a, b) => a.at - b.at);
  state.grants = kept.map((entry) => entry.at);
  file.owners = kept.map((entry) => entry.owner);
  state.blockedUntil = Math.min(state.blockedUntil, now + limit.windowMs);
  if (state.throttle) state.throttle.at = Math.min(state.throttle.at, now);
  // Processes map wall time to their clocks apart by up to a small step: a bid that recent is kept.
  state.bids = state.bids.filter((bid) => bid.at <= now + WALL_STEP_MS);
  const last = state.grants[state.grants.length - 1];
  const paced = last === undefined ? now : last + limit.windowMs / ratePerWindow(limit, state.throttle, last);
  state.paceAt = Math.min(state.paceAt, Math.max(state.blockedUntil, paced));
}

function shiftBack(file: LedgerFile, ms: number): void {
  file.state = shifted(file.state, -ms);
  for (const [owner, at] of file.seen) file.seen.set(owner, at - ms);
}

/** Moves every time of `state` by `ms` (from a process's clock to the wall clock, or back). */
export function shifted(state: LedgerState, ms: number): LedgerState {
  return {
    grants: state.grants.map((at) => at + ms),
    blockedUntil: state.blockedUntil + ms,
    paceAt: state.paceAt + ms,
    pauses: state.pauses,
    throttle: state.throttle && { ...state.throttle, at: state.throttle.at + ms },
    bids: state.bids.map(({ id, key, at }) => ({ id, key: key + ms, at: at + ms })),
  };
}
