import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { emptyState, LedgerBusyError, MemoryLedger, type BudgetLedger, type LedgerState } from "./ledger";
import { readLedger, writtenLedger } from "./ledgerFormat";
import type { RateLimit } from "./rateLimit";

/*
 * The rate budget's state in a file shared by every process of this user on this machine that
 * uses the same key at the same API: the server counts per key. The temp folder is not ours, so
 * the file lives in a folder this user owns and no one else can enter (checked with lstat, never
 * followed through a link), every open refuses links and special files, reads are capped, and
 * temporary names are created exclusively. A lock file guards each read-change-write, which does
 * a few small reads and writes and awaits nothing, so it is held for microseconds; a process that
 * finds it held gets `LedgerBusyError` and tries again later, asynchronously (see RateBudget).
 * Whatever goes wrong, the process keeps its budget in memory from then on and says so once.
 */

/** A lock older than this was left by a process that died holding it. */
export const STALE_LOCK_MS = 1_000;
/** A lock held this long (a clock set back, a lock that cannot be broken) makes this process give up on the file. */
export const LOCK_GIVE_UP_MS = 2_000;
/** The largest ledger file read: ours hold a few hundred bytes. */
export const MAX_LEDGER_BYTES = 64 * 1024;

const { O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_RDONLY, O_WRONLY } = constants;
const CREATE_NEW = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW;

/** Says why the file cannot be used; the ledger falls back to memory. */
class UnsafeLedgerError extends Error {}

function currentUid(): number | undefined {
  return typeof process.getuid === "function" ? process.getuid() : undefined;
}

/** Why `path` is not a folder only this user can use (owner, mode, not a link), or undefined when it is. */
export function folderProblem(path: string, uid = currentUid()): string | undefined {
  let stats;
  try {
    stats = lstatSync(path);
  } catch (error) {
    return `cannot inspect ${path} (${(error as NodeJS.ErrnoException).code})`;
  }
  if (stats.isSymbolicLink()) return `${path} is a link`;
  if (!stats.isDirectory()) return `${path} is not a folder`;
  if (stats.uid !== uid) return `${path} belongs to another user (uid ${stats.uid})`;
  if ((stats.mode & 0o077) !== 0)
    return `${path} is open to other users (mode ${(stats.mode & 0o777).toString(8)})`;
  return undefined;
}

/** The per-user runtime folder when there is a safe one, else the temp folder. */
export function ledgerBase(env: NodeJS.ProcessEnv = process.env): string {
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime && runtime.startsWith("/") && folderProblem(runtime) === undefined) return runtime;
  return tmpdir();
}

/**
 * The file of one key at one API and limit. Its name is a hash of URL, key id and limit: never
 * the secret, and nothing a reader could use.
 */
export function ledgerPath(apiUrl: string, keyId: string, limit: RateLimit, base = ledgerBase()): string {
  const hash = createHash("sha256")
    .update(`${apiUrl}\n${keyId}\n${limit.requests}/${limit.windowMs}`)
    .digest("hex")
    .slice(0, 32);
  return join(base, `pulumi-dbcloud-${currentUid() ?? "user"}`, `budget-${hash}.json`);
}

export interface FileLedgerOptions {
  /** Added to this process's clock times in the file (processes' clocks may differ in origin). */
  offsetMs?: number;
  /** This process's clock time; by default the wall clock less the offset. */
  now?: () => number;
  /** Told once, when the file is given up for memory. */
  warn?: (message: string) => void;
}

export class FileLedger implements BudgetLedger {
  readonly path: string;
  private readonly offsetMs: number;
  private readonly now: () => number;
  private readonly warn: (message: string) => void;
  private fallback: MemoryLedger | undefined;
  private folderChecked = false;
  /** Since when (monotonic ms) the lock has been found held without a break. */
  private busySince: number | undefined;

  constructor(path: string, options: FileLedgerOptions = {}) {
    this.path = path;
    const offsetMs = (this.offsetMs = options.offsetMs ?? 0);
    this.now = options.now ?? (() => Date.now() - offsetMs);
    this.warn = options.warn ?? ((message) => process.emitWarning(message, { code: "DBCLOUD_BUDGET_LOCAL" }));
  }

  /** True once this ledger gave up the file for memory. */
  get local(): boolean {
    return this.fallback !== undefined;
  }

  update<T>(change: (state: LedgerState) => T): T {
    if (this.fallback) return this.fallback.update(change);
    let unlock: () => void;
    try {
      this.checkFolder();
      unlock = this.lock();
    } catch (error) {
      if (error instanceof LedgerBusyError) throw error;
      return this.giveUp(error, emptyState()).update(change);
    }
    let state: LedgerState;
    try {
      state = this.read();
    } catch (error) {
      unlock();
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
    const reason = error instanceof Error ? error.message : String(error);
    this.fallback = new MemoryLedger(state);
    this.warn(
      `pulumi-dbcloud: the rate budget is kept in this process only, not shared with the other ` +
        `processes of this machine: ${reason}`,
    );
    return this.fallback;
  }

  private checkFolder(): void {
    if (this.folderChecked) return;
    const folder = dirname(this.path);
    if (currentUid() === undefined) throw new UnsafeLedgerError("this platform has no file owners to check");
    try {
      mkdirSync(folder, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const problem = folderProblem(folder);
    if (problem) throw new UnsafeLedgerError(problem);
    this.folderChecked = true;
  }

  /** Takes the lock, breaking a stale one; throws LedgerBusyError while a live process holds it. */
  private lock(): () => void {
    const lockPath = `${this.path}.lock`;
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        closeSync(openSync(lockPath, CREATE_NEW, 0o600));
        this.busySince = undefined;
        return () => {
          try {
            unlinkSync(lockPath);
          } catch {
            // Broken as stale by another process meanwhile: nothing to release.
          }
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const now = performance.now();
      this.busySince ??= now;
      const stuck = now - this.busySince > LOCK_GIVE_UP_MS;
      if (attempt > 0 && stuck) throw new UnsafeLedgerError(`its lock ${lockPath} stays held`);
      if (!stuck && this.lockAgeMs(lockPath) <= STALE_LOCK_MS) throw new LedgerBusyError();
      try {
        unlinkSync(lockPath); // left by a process that died holding it
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== "ENOENT")
          throw new UnsafeLedgerError(`its stale lock ${lockPath} cannot be removed (${code})`);
      }
    }
    throw new LedgerBusyError(); // others keep taking it as soon as it is broken
  }

  private lockAgeMs(lockPath: string): number {
    try {
      return Date.now() - lstatSync(lockPath).mtimeMs;
    } catch {
      return 0; // released just now
    }
  }

  private read(): LedgerState {
    let fd: number;
    try {
      fd = openSync(this.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return emptyState();
      throw new UnsafeLedgerError(`cannot open ${this.path} (${code === "ELOOP" ? "a link" : code})`);
    }
    try {
      const stats = fstatSync(fd);
      if (!stats.isFile()) throw new UnsafeLedgerError(`${this.path} is not a regular file`);
      if (stats.uid !== currentUid()) throw new UnsafeLedgerError(`${this.path} belongs to another user`);
      const buffer = Buffer.alloc(MAX_LEDGER_BYTES + 1);
      let length = 0;
      for (let read = -1; read !== 0 && length < buffer.length; length += read) {
        read = readSync(fd, buffer, length, buffer.length - length, null);
      }
      // A file over the cap is none of ours: start afresh (the write replaces it).
      if (length > MAX_LEDGER_BYTES) return emptyState();
      return readLedger(
        buffer.subarray(0, length).toString("utf8"),
        this.offsetMs,
        Date.now() - this.offsetMs,
      );
    } finally {
      closeSync(fd);
    }
  }

  /** Written whole under an exclusive temporary name and renamed into place; an empty ledger removes the file. */
  private write(state: LedgerState): void {
    const text = writtenLedger(state, this.offsetMs, this.now());
    if (text === undefined) {
      try {
        unlinkSync(this.path);
      } catch {
        // Not there: nothing to remove.
      }
      return;
    }
    const temporary = `${this.path}.${randomBytes(6).toString("hex")}.tmp`;
    const fd = openSync(temporary, CREATE_NEW, 0o600);
    try {
      try {
        writeSync(fd, text);
      } finally {
        closeSync(fd);
      }
      renameSync(temporary, this.path);
    } catch (error) {
      try {
        unlinkSync(temporary);
      } catch {
        // Already gone.
      }
      throw error;
    }
  }
}
