import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { emptyState, LEDGER_BUSY, MemoryLedger, type BudgetLedger, type LedgerState } from "./ledger";
import {
  believable,
  formatLedgerFile,
  LOCK_GIVE_UP_MS,
  parseLedgerFile,
  SELF,
  shifted,
  WALL_STEP_MS,
  type LedgerFile,
} from "./ledgerFile";
import { budgetHash, type RateLimit } from "./rateLimit";

/*
 * The rate budget shared by this user's processes on this machine through a file, used only while
 * it is safe (docs/rate-limits.md, "a file, kept safe"): whatever goes wrong, the budget goes on in
 * memory and says so once.
 */

/** A lock older than this was left by a process that died holding it. */
const STALE_LOCK_MS = 1_000;
/** The largest ledger file read: ours hold a few kilobytes at most. */
const MAX_LEDGER_BYTES = 256 * 1024;

const { O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_RDONLY, O_WRONLY } = fs.constants;
const CREATE_NEW = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW;

const currentUid = () => process.getuid?.();
const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code;

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
  const folder = `pulumi-dbcloud-${currentUid() ?? "user"}`;
  return join(base, folder, `budget-${budgetHash(apiUrl, keyId, limit)}.json`);
}

/** How a `FileLedger` maps its clock to the file's and says it gave the file up. */
export interface FileLedgerOptions {
  /** The limit the file is for: its window bounds how long the file may hold a request back. */
  limit: RateLimit;
  /** This process's clock time; by default the wall clock. */
  now?: () => number;
  /** The wall clock; when given, the offset follows it when it is stepped. */
  wallNow?: () => number;
  /** Told once, when the file is given up for memory. */
  warn?: (message: string) => void;
}

/**
 * A ledger in a file that this user's processes using the same key share. It holds wall-clock
 * times, which each process maps to its monotonic clock by an offset: whole ms, so that a waiter
 * finds its own reservation again, and taken anew when the wall clock is stepped.
 */
export class FileLedger implements BudgetLedger {
  private offsetMs: number;
  private readonly now: () => number;
  private fallback: MemoryLedger | undefined;
  private folderChecked = false;
  /** Since when (monotonic ms) the lock has been found held without a break. */
  private busySince: number | undefined;

  constructor(
    readonly path: string,
    private readonly options: FileLedgerOptions,
  ) {
    const { now, wallNow } = options;
    this.offsetMs = now && wallNow ? Math.round(wallNow() - now()) : 0;
    this.now = now ?? Date.now;
  }

  /** Runs `change` under the file's lock; `LEDGER_BUSY` while another process holds it. */
  update<T>(change: (state: LedgerState) => T): T | typeof LEDGER_BUSY {
    if (this.fallback) return this.fallback.update(change);
    let unlock: (() => void) | undefined;
    let file: LedgerFile;
    try {
      this.checkFolder();
      if (!(unlock = this.lock())) return LEDGER_BUSY;
      file = parseLedgerFile(this.read());
      believable(file, this.options.limit, this.fileNow());
    } catch (error) {
      unlock?.();
      return this.giveUp(error, emptyState()).update(change);
    }
    const offsetMs = this.offsetMs;
    const state = shifted(file.state, -offsetMs);
    // Whose each grant is, by its time: a grant this process adds or moves is its own.
    const owners = new Map<number, string[]>();
    state.grants.forEach((at, index) => owners.set(at, [...(owners.get(at) ?? []), file.owners[index]]));
    try {
      const result = change(state);
      file.state = shifted(state, offsetMs);
      file.owners = state.grants.map((at) => owners.get(at)?.shift() ?? SELF);
      try {
        this.write(file);
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
    const warn =
      this.options.warn ?? ((message) => process.emitWarning(message, { code: "DBCLOUD_BUDGET_LOCAL" }));
    warn(
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

  /** The file's text; none when there is no file. */
  private read(): string {
    let fd: number;
    try {
      fd = fs.openSync(this.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    } catch (error) {
      const code = codeOf(error);
      if (code === "ENOENT") return "";
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
      return length > MAX_LEDGER_BYTES ? "" : buffer.toString("utf8", 0, length);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** The wall-clock time now as this process maps it, the offset first following a stepped wall clock. */
  private fileNow(): number {
    const now = this.now();
    const { wallNow } = this.options;
    const drift = wallNow ? wallNow() - (now + this.offsetMs) : 0;
    if (Math.abs(drift) > WALL_STEP_MS) this.offsetMs = Math.round(this.offsetMs + drift);
    return now + this.offsetMs;
  }

  /** Written whole under an exclusive temporary name and renamed into place; an empty ledger removes the file. */
  private write(file: LedgerFile): void {
    const now = this.now() + this.offsetMs;
    file.seen.set(SELF, now);
    const text = formatLedgerFile(file, now);
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
