import { createHash } from "node:crypto";
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryLedger, type BudgetLedger, type LedgerState } from "./ledger";
import type { RateLimit } from "./rateLimit";

/*
 * The rate budget's grants in a file shared by every process on this machine that uses the same
 * key at the same API (issue 11: parallel pipelines share a key, and the server counts per key).
 * A lock file guards each read-change-write; nothing is awaited while it is held, so it is held
 * for microseconds, and a lock left by a killed process is broken after `STALE_LOCK_MS`.
 * Any file error makes this process fall back to its own memory: coordination is lost, the
 * budget still holds for this process (and 429s still pause and slow it).
 */

/** A lock older than this was left by a process that died holding it. */
export const STALE_LOCK_MS = 1_000;
/** Longest wait for the lock before it is taken as stale. */
const LOCK_WAIT_MS = 2_000;

const sleeper = new Int32Array(new SharedArrayBuffer(4));
const pause = (ms: number) => Atomics.wait(sleeper, 0, 0, ms);

/**
 * The file of one key at one API and limit, in a per-user folder of the temp directory. Its name
 * is a hash of URL, key id and limit: never the secret, and nothing a reader could use.
 */
export function ledgerPath(apiUrl: string, keyId: string, limit: RateLimit, dir = tmpdir()): string {
  const hash = createHash("sha256")
    .update(`${apiUrl}\n${keyId}\n${limit.requests}/${limit.windowMs}`)
    .digest("hex")
    .slice(0, 32);
  const user = typeof process.getuid === "function" ? String(process.getuid()) : "user";
  return join(dir, `pulumi-dbcloud-${user}`, `budget-${hash}.json`);
}

export class FileLedger implements BudgetLedger {
  readonly path: string;
  private fallback: MemoryLedger | undefined;

  constructor(path: string) {
    this.path = path;
  }

  /** True once a file error made this ledger fall back to memory. */
  get local(): boolean {
    return this.fallback !== undefined;
  }

  update<T>(change: (state: LedgerState) => T): T {
    if (this.fallback) return this.fallback.update(change);
    let unlock: () => void;
    try {
      unlock = this.lock();
    } catch {
      this.fallback = new MemoryLedger();
      return this.fallback.update(change);
    }
    try {
      const state = this.read();
      const result = change(state);
      try {
        this.write(state);
      } catch {
        // Cannot write here: go on alone, from what was just decided.
        this.fallback = new MemoryLedger(state);
      }
      return result;
    } finally {
      unlock();
    }
  }

  private lock(): () => void {
    const lockPath = `${this.path}.lock`;
    const started = Date.now();
    for (;;) {
      try {
        closeSync(openSync(lockPath, "wx", 0o600));
        return () => {
          try {
            unlinkSync(lockPath);
          } catch {
            // Already broken as stale by another process: nothing to release.
          }
        };
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOENT") mkdirSync(join(this.path, ".."), { recursive: true, mode: 0o700 });
        else if (code !== "EEXIST") throw error;
        else if (Date.now() - started > LOCK_WAIT_MS || this.lockAgeMs(lockPath) > STALE_LOCK_MS) {
          try {
            unlinkSync(lockPath);
          } catch {
            // Someone else broke it first.
          }
        } else pause(1);
      }
    }
  }

  private lockAgeMs(lockPath: string): number {
    try {
      return Date.now() - statSync(lockPath).mtimeMs;
    } catch {
      return 0;
    }
  }

  private read(): LedgerState {
    try {
      const value = JSON.parse(readFileSync(this.path, "utf8")) as Partial<LedgerState>;
      const grants = Array.isArray(value.grants) ? value.grants.filter((t) => Number.isFinite(t)) : [];
      const blockedUntil = Number.isFinite(value.blockedUntil) ? Number(value.blockedUntil) : 0;
      return { grants: grants.sort((a, b) => a - b), blockedUntil };
    } catch {
      return { grants: [], blockedUntil: 0 }; // no file yet, or one cut short: start afresh
    }
  }

  /** Written whole and renamed into place; an empty ledger removes the file. */
  private write(state: LedgerState): void {
    if (!state.grants.length && state.blockedUntil <= Date.now()) {
      try {
        unlinkSync(this.path);
      } catch {
        // Not there: nothing to remove.
      }
      return;
    }
    const temporary = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(state), { mode: 0o600 });
    renameSync(temporary, this.path);
  }
}
