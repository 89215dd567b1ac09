import { createHash } from "node:crypto";
import { readlinkSync } from "node:fs";
import { hostname } from "node:os";
import { ratePerWindow } from "./adaptiveRate";
import type { LedgerState } from "./ledger";
import type { RateLimit } from "./rateLimit";

/*
 * What a budget file holds, in wall-clock times (epoch ms: the one timeline of processes started
 * apart), and which of it a reader believes (docs/rate-limits.md, "What a file outlives").
 */

/** The most grants a file may hold (reservations of waiting requests included). */
export const MAX_GRANTS = 2_000;
/** A lock held this long (a clock set back, a lock that cannot be broken) makes a process give up on the file. */
export const LOCK_GIVE_UP_MS = 2_000;
/** A wall clock this far from where a process expects it was stepped (NTP, a resumed VM, a hand). */
export const WALL_STEP_MS = 1_000;

const finite = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

/** This machine as its processes see it (a container with its own pid namespace shares no pids). */
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
  state: LedgerState;
  /** The writer of each grant, in the grants' order ("" when the file does not say). */
  owners: string[];
  /** Each writer's last write. */
  seen: Map<string, number>;
  /** When the file was written, if it says. */
  writtenAt: number | undefined;
}

/** The content of a file's `text`, checked field by field: a damaged file reads as empty. */
export function parseLedgerFile(text: string): LedgerFile {
  let value: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === "object" && parsed !== null) value = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: read as empty.
  }
  const time = (raw: unknown) => (finite(raw) ? raw : 0);
  const list = (raw: unknown) => (Array.isArray(raw) ? (raw as unknown[]).slice(0, MAX_GRANTS) : []);
  const rawOwners = list(value.owners);
  const entries = list(value.grants)
    .map((at, index) => ({ at, owner: typeof rawOwners[index] === "string" ? rawOwners[index] : "" }))
    .filter((entry): entry is { at: number; owner: string } => finite(entry.at))
    .sort((a, b) => a.at - b.at);
  const seen = new Map<string, number>();
  const rawSeen = value.seen;
  if (typeof rawSeen === "object" && rawSeen !== null && !Array.isArray(rawSeen)) {
    for (const [owner, at] of Object.entries(rawSeen).slice(0, MAX_GRANTS))
      if (finite(at)) seen.set(owner, at);
  }
  const bids = (list(value.bids) as Record<string, unknown>[])
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
  // The state is rebuilt from named fields when read (parse), so only those are ever written back.
  return JSON.stringify({
    ...state,
    writtenAt: now,
    grants: state.grants.slice(-MAX_GRANTS),
    owners: owners.slice(-MAX_GRANTS),
    seen,
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
 * Drops from `file` at wall time `now` what no live writer accounts for (docs/rate-limits.md): a
 * file written while the wall clock ran ahead moves back by as much; a gone writer's grants dated
 * after its last write were never sent; nothing else holds a request back past the window.
 */
export function believable(file: LedgerFile, limit: RateLimit, now: number): void {
  const skew = (file.writtenAt ?? now) - now;
  if (skew > WALL_STEP_MS) {
    file.state = shifted(file.state, -skew);
    for (const [owner, at] of file.seen) file.seen.set(owner, at - skew);
  }
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
