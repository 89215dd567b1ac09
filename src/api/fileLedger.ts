import { createHash, randomBytes } from "node:crypto";
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { emptyState, LEDGER_BUSY, MemoryLedger, type BudgetLedger, type LedgerState } from "./ledger";
import type { RateLimit } from "./rateLimit";

/*
 * The rate budget shared by this user's processes on this machine through a file. The temp folder
 * is not ours: the file lives in a folder only this user can use, no open follows a link or reads
 * a special file, reads are capped, and a lock held by another process is waited for
 * asynchronously by the caller (LEDGER_BUSY). Whatever goes wrong, the budget goes on in
 * memory and says so once.
 */

/** A lock older than this was left by a process that died holding it. */
const STALE_LOCK_MS = 1_000;
/** A lock held this long (a clock set back, a lock that cannot be broken) makes this process give up on the file. */
const LOCK_GIVE_UP_MS = 2_000;
/** The largest ledger file read: ours hold a few hundred bytes. */
const MAX_LEDGER_BYTES = 64 * 1024;
/** The furthest ahead of now a time read from the file may lie, whatever a damaged file or a clock set back says. */
export const MAX_AHEAD_MS = 15 * 60_000;
/** The most grants a file may hold (reservations of waiting requests included). */
const MAX_GRANTS = 2_000;

const { O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_RDONLY, O_WRONLY } = fs.constants;
const CREATE_NEW = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW;

const currentUid = () => process.getuid?.();
const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code;
const finite = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

function removeIfThere(path: string): void {
  try {
    fs.unlinkSync(path);
  } catch {
    // Already gone (or broken as stale by another process): nothing to remove.
  }
}

/** Why `path` is not a folder only this user can use (owner, mode, not a link), or undefined when it is. */
function folderProblem(path: string): string | undefined {
  let stats;
  try {
    stats = fs.lstatSync(path);
  } catch (error) {
    return `cannot inspect ${path} (${codeOf(error)})`;
  }
  if (stats.isSymbolicLink()) return `${path} is a link`;
  if (!stats.isDirectory()) return `${path} is not a folder`;
  if (stats.uid !== currentUid()) return `${path} belongs to another user (uid ${stats.uid})`;
  if (stats.mode & 0o077) return `${path} is open to other users (mode ${(stats.mode & 0o777).toString(8)})`;
  return undefined;
}

/** The per-user runtime folder when there is a safe one, else the temp folder. */
export function ledgerBase(env: NodeJS.ProcessEnv = process.env): string {
  const runtime = env.XDG_RUNTIME_DIR;
  return runtime?.startsWith("/") && !folderProblem(runtime) ? runtime : tmpdir();
}

/** The file of one key at one API and limit, named by a hash that reveals nothing of the key. */
export function ledgerPath(apiUrl: string, keyId: string, limit: RateLimit, base = ledgerBase()): string {
  const hash = createHash("sha256")
    .update(`${apiUrl}\n${keyId}\n${limit.requests}/${limit.windowMs}`)
    .digest("hex")
    .slice(0, 32);
  return join(base, `pulumi-dbcloud-${currentUid() ?? "user"}`, `budget-${hash}.json`);
}

/** The state in a file's `text` (times less `offsetMs`), checked field by field; a damaged file reads as empty. */
function parseLedger(text: string, offsetMs: number, now: number): LedgerState {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return emptyState();
  }
  if (typeof value !== "object" || value === null) return emptyState();
  const latest = now + MAX_AHEAD_MS;
  const time = (raw: unknown) => (finite(raw) ? Math.min(latest, raw - offsetMs) : 0);
  const grants = Array.isArray(value.grants) ? value.grants.slice(0, MAX_GRANTS).filter(finite) : [];
  const throttle = value.throttle as Record<string, unknown> | undefined;
  return {
    grants: grants
      .map((grant) => grant - offsetMs)
      .filter((grant) => grant <= latest)
      .sort((a, b) => a - b),
    blockedUntil: time(value.blockedUntil),
    paceAt: time(value.paceAt),
    pauses: Number.isSafeInteger(value.pauses) ? (value.pauses as number) : 0,
    throttle:
      throttle && finite(throttle.at) && finite(throttle.share) && throttle.share > 0
        ? { at: Math.min(now, throttle.at - offsetMs), share: throttle.share }
        : undefined,
  };
}

/** The file's text for `state`, or undefined when nothing in it still matters at `now`. */
function formatLedger(state: LedgerState, offsetMs: number, now: number): string | undefined {
  if (!state.grants.length && state.blockedUntil <= now && state.paceAt <= now && !state.throttle) return;
  const shift = (time: number) => time + offsetMs;
  return JSON.stringify({
    grants: state.grants.slice(-MAX_GRANTS).map(shift),
    blockedUntil: shift(state.blockedUntil),
    paceAt: shift(state.paceAt),
    pauses: state.pauses,
    throttle: state.throttle && { at: shift(state.throttle.at), share: state.throttle.share },
  });
}

/** How a `FileLedger` maps its clock to the file's and says it gave the file up. */
export interface FileLedgerOptions {
  /** Added to this process's clock times in the file (processes' clocks may differ in origin). */
  offsetMs?: number;
  /** This process's clock time; by default the wall clock less the offset. */
  now?: () => number;
  /** Told once, when the file is given up for memory. */
  warn?: (message: string) => void;
}

/** A ledger in a file that this user's processes using the same key share. */
export class FileLedger implements BudgetLedger {
  private readonly offsetMs: number;
  private readonly now: () => number;
  private readonly warn: (message: string) => void;
  private fallback: MemoryLedger | undefined;
  private folderChecked = false;
  /** Since when (monotonic ms) the lock has been found held without a break. */
  private busySince: number | undefined;

  constructor(
    readonly path: string,
    options: FileLedgerOptions = {},
  ) {
    const offsetMs = (this.offsetMs = options.offsetMs ?? 0);
    this.now = options.now ?? (() => Date.now() - offsetMs);
    this.warn = options.warn ?? ((message) => process.emitWarning(message, { code: "DBCLOUD_BUDGET_LOCAL" }));
  }

  /** Runs `change` under the file's lock; `LEDGER_BUSY` while another process holds it. */
  update<T>(change: (state: LedgerState) => T): T | typeof LEDGER_BUSY {
    if (this.fallback) return this.fallback.update(change);
    let unlock: (() => void) | undefined;
    let state: LedgerState;
    try {
      this.checkFolder();
      if (!(unlock = this.lock())) return LEDGER_BUSY;
      state = this.read();
    } catch (error) {
      unlock?.();
      return this.giveUp(error, emptyState()).update(change);
    }
    try {
      const result = change(state);
      try {
        this.write(state);
      } catch (error) {
        this.giveUp(error, state); // go on alone, from what was just decided
      }
      return result;
    } finally {
      unlock();
    }
  }

  private giveUp(error: unknown, state: LedgerState): MemoryLedger {
    this.fallback = new MemoryLedger(state);
    this.warn(
      `pulumi-dbcloud: the rate budget is kept in this process only, not shared with the other ` +
        `processes of this machine: ${error instanceof Error ? error.message : String(error)}`,
    );
    return this.fallback;
  }

  private checkFolder(): void {
    if (this.folderChecked) return;
    const folder = dirname(this.path);
    if (currentUid() === undefined) throw new Error("this platform has no file owners to check");
    try {
      fs.mkdirSync(folder, { mode: 0o700 });
    } catch (error) {
      if (codeOf(error) !== "EEXIST") throw error;
    }
    const problem = folderProblem(folder);
    if (problem) throw new Error(problem);
    this.folderChecked = true;
  }

  /** Takes the lock, breaking a stale one; undefined while a live process holds it. */
  private lock(): (() => void) | undefined {
    const lockPath = `${this.path}.lock`;
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        fs.closeSync(fs.openSync(lockPath, CREATE_NEW, 0o600));
        this.busySince = undefined;
        return () => removeIfThere(lockPath);
      } catch (error) {
        if (codeOf(error) !== "EEXIST") throw error;
      }
      const now = performance.now();
      this.busySince ??= now;
      const stuck = now - this.busySince > LOCK_GIVE_UP_MS;
      if (attempt > 0 && stuck) throw new Error(`its lock ${lockPath} stays held`);
      // No lock found: released just now.
      const lockedAt = fs.lstatSync(lockPath, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
      if (!stuck && Date.now() - lockedAt <= STALE_LOCK_MS) return undefined;
      try {
        fs.unlinkSync(lockPath); // left by a process that died holding it
      } catch (error) {
        if (codeOf(error) !== "ENOENT")
          throw new Error(`its stale lock ${lockPath} cannot be removed (${codeOf(error)})`);
      }
    }
    return undefined; // others keep taking it as soon as it is broken
  }

  private read(): LedgerState {
    let fd: number;
    try {
      fd = fs.openSync(this.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    } catch (error) {
      const code = codeOf(error);
      if (code === "ENOENT") return emptyState();
      throw new Error(`cannot open ${this.path} (${code === "ELOOP" ? "a link" : code})`);
    }
    try {
      const stats = fs.fstatSync(fd);
      if (!stats.isFile()) throw new Error(`${this.path} is not a regular file`);
      if (stats.uid !== currentUid()) throw new Error(`${this.path} belongs to another user`);
      const buffer = Buffer.alloc(MAX_LEDGER_BYTES + 1);
      let length = 0;
      for (let read = -1; read !== 0 && length < buffer.length; length += read) {
        read = fs.readSync(fd, buffer, length, buffer.length - length, null);
      }
      // A file over the cap is none of ours: start afresh (the write replaces it).
      if (length > MAX_LEDGER_BYTES) return emptyState();
      return parseLedger(buffer.toString("utf8", 0, length), this.offsetMs, Date.now() - this.offsetMs);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Written whole under an exclusive temporary name and renamed into place; an empty ledger removes the file. */
  private write(state: LedgerState): void {
    const text = formatLedger(state, this.offsetMs, this.now());
    if (text === undefined) return removeIfThere(this.path);
    const temporary = `${this.path}.${randomBytes(6).toString("hex")}.tmp`;
    const fd = fs.openSync(temporary, CREATE_NEW, 0o600);
    try {
      try {
        fs.writeSync(fd, text);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(temporary, this.path);
    } catch (error) {
      removeIfThere(temporary);
      throw error;
    }
  }
}
