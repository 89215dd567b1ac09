import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { ledgerPath } from "../../src/api/fileLedger";
import { PROBE_LIMIT, PROBE_URL, PROBE_KEY, type ProbeCase, type ProbeResult } from "./ledgerProbe";

/*
 * Hostile temp folders for the shared budget file: each case prepares a folder as another user,
 * a planted link, a special file, a lock that cannot be removed, a read-only folder or a full disk
 * left it, then one child process (ledgerProbe.ts) makes its calls in every case folder. The calls
 * run as a second user when the tests run as root (as CI does), so that file permissions hold for
 * it; otherwise as this user, and the cases that need another owner, a device node or a mount are
 * skipped with the reason.
 */

/** Users need no account: the checks compare numbers. */
const SECOND_USER = 4711;
/**
 * Root, and a second user can load the probe from this folder (not so in a folder only root may
 * enter, such as a mutation tool's sandbox).
 */
const ROOT =
  process.getuid?.() === 0 &&
  spawnSync(process.execPath, ["-e", `require("fs").accessSync(${JSON.stringify(__filename)})`], {
    uid: SECOND_USER,
    gid: SECOND_USER,
  }).status === 0;
const POSIX = typeof process.getuid === "function";
export const VICTIM = ROOT ? SECOND_USER : (process.getuid?.() ?? 0);
const OTHER = 4712;
const NEEDS_ROOT =
  "needs root and a folder a second user can read (to act as a second user, own files as another, " +
  "make a device node or mount a small disk)";

interface Case {
  name: string;
  rootOnly?: boolean;
  deadlineMs?: number;
  calls?: number;
  /** Prepares the case folder; `file` is where the victim's budget file goes. */
  setup(caseDir: string, folder: string, file: string): void | boolean;
}

const fileName = basename(ledgerPath(PROBE_URL, PROBE_KEY, PROBE_LIMIT, "/"));

function ownFolder(folder: string, mode = 0o700): void {
  mkdirSync(folder);
  chmodSync(folder, mode);
  if (ROOT) chownSync(folder, VICTIM, VICTIM);
}

function victimHome(caseDir: string): string {
  const home = join(caseDir, "home");
  ownFolder(home);
  writeFileSync(join(home, "precious"), "keep");
  if (ROOT) chownSync(join(home, "precious"), VICTIM, VICTIM);
  return home;
}

const CASES: Case[] = [
  { name: "a fresh temp folder", setup: () => undefined },
  {
    name: "another user's folder at the name, open to all",
    rootOnly: true,
    setup: (_dir, folder) => {
      mkdirSync(folder);
      chmodSync(folder, 0o777);
      chownSync(folder, OTHER, OTHER);
    },
  },
  { name: "the user's own folder left open to all", setup: (_dir, folder) => ownFolder(folder, 0o777) },
  {
    name: "a link planted at the folder's name",
    setup: (dir, folder) => symlinkSync(victimHome(dir), folder),
  },
  {
    name: "a link planted at the file's name",
    setup: (dir, folder, file) => {
      const home = victimHome(dir);
      ownFolder(folder);
      symlinkSync(join(home, "precious"), file);
    },
  },
  {
    name: "a FIFO at the file's name",
    setup: (_dir, folder, file) => {
      ownFolder(folder);
      execFileSync("mkfifo", ["-m", "600", file]);
      if (ROOT) chownSync(file, VICTIM, VICTIM);
    },
  },
  {
    name: "a link to /dev/zero at the file's name",
    setup: (_dir, folder, file) => {
      ownFolder(folder);
      symlinkSync("/dev/zero", file);
    },
  },
  {
    name: "a device node at the file's name",
    rootOnly: true,
    setup: (_dir, folder, file) => {
      ownFolder(folder);
      execFileSync("mknod", ["-m", "600", file, "c", "1", "5"]); // another /dev/zero
      chownSync(file, VICTIM, VICTIM);
    },
  },
  {
    name: "a stale lock that cannot be removed (the folder became read-only)",
    setup: (_dir, folder, file) => {
      ownFolder(folder);
      writeFileSync(`${file}.lock`, "");
      const hourAgo = Date.now() / 1000 - 3_600;
      utimesSync(`${file}.lock`, hourAgo, hourAgo);
      chmodSync(folder, 0o500);
    },
  },
  {
    name: "a lock dated in the future that cannot be removed, and short deadlines",
    deadlineMs: 400,
    calls: 8,
    setup: (_dir, folder, file) => {
      ownFolder(folder);
      writeFileSync(`${file}.lock`, "");
      const hourAhead = Date.now() / 1000 + 3_600;
      utimesSync(`${file}.lock`, hourAhead, hourAhead);
      chmodSync(folder, 0o500);
    },
  },
  { name: "a read-only folder", setup: (_dir, folder) => ownFolder(folder, 0o500) },
  {
    name: "a full disk",
    rootOnly: true,
    setup: (dir, folder) => {
      try {
        execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k,mode=1777", "tmpfs", dir], { stdio: "ignore" });
      } catch {
        return false; // no mounts here (a container without the right): skipped
      }
      ownFolder(folder);
      try {
        writeFileSync(join(dir, "filler"), Buffer.alloc(1024 * 1024));
      } catch {
        // ENOSPC: the disk is full now
      }
      return true;
    },
  },
];

/** What the probe left: each case's result, the folders it used, and the reason a case was skipped. */
export interface HostileFolders {
  /** The case's result, or a skip of the calling test that says why. */
  resultOf(context: Mocha.Context, name: string): ProbeResult;
  /** The case's folder (`dir`), the budget's folder in it and the budget file's path. */
  files: Map<string, { dir: string; folder: string; file: string }>;
}

/** Prepares every case and runs the probe before the calling `describe`'s tests; cleans up after. */
export function probeHostileFolders(): HostileFolders {
  let work: string;
  const results = new Map<string, ProbeResult>();
  const skipped = new Map<string, string>();
  const mounted: string[] = [];
  const files = new Map<string, { dir: string; folder: string; file: string }>();

  before(async function () {
    if (!POSIX) this.skip(); // no file owners to check: the budget never uses a file there
    // Root passes every permission check: as root, only a second user makes these cases mean anything.
    if (process.getuid?.() === 0 && !ROOT) {
      this.test!.title += " (skipped: root, and no second user can read this folder)";
      this.skip();
    }
    work = mkdtempSync(join(tmpdir(), "dbcloud-hostile-"));
    chmodSync(work, 0o755);
    const probes: ProbeCase[] = [];
    CASES.forEach((one, i) => {
      if (one.rootOnly && !ROOT) return void skipped.set(one.name, NEEDS_ROOT);
      const dir = join(work, `case-${i}`);
      mkdirSync(dir);
      chmodSync(dir, 0o1777); // like /tmp: anyone may create, only owners may remove
      const folder = join(dir, `pulumi-dbcloud-${VICTIM}`);
      const file = join(folder, fileName);
      if (one.setup(dir, folder, file) === false)
        return void skipped.set(one.name, "cannot mount a small disk here");
      if (one.name === "a full disk") mounted.push(dir);
      files.set(one.name, { dir, folder, file });
      probes.push({ name: one.name, base: dir, deadlineMs: one.deadlineMs ?? 3_000, calls: one.calls ?? 3 });
    });
    const child = spawn(
      process.execPath,
      [
        "-r",
        "ts-node/register/transpile-only",
        join(__dirname, "../helpers/ledgerProbe.ts"),
        JSON.stringify(probes),
      ],
      {
        cwd: join(__dirname, "../.."),
        env: { PATH: process.env.PATH, HOME: work },
        stdio: ["ignore", "pipe", "pipe"],
        ...(ROOT ? { uid: VICTIM, gid: VICTIM } : {}),
      },
    );
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")));
    await once(child, "exit");
    const line = out.split("\n").find((l) => l.startsWith("RESULT "));
    assert.ok(line, `the probe printed no result: ${err.slice(-2_000)}`);
    for (const result of JSON.parse(line.slice("RESULT ".length)) as ProbeResult[])
      results.set(result.name, result);
  });

  after(() => {
    for (const dir of mounted) execFileSync("umount", [dir]);
    if (!work) return;
    // Read-only folders first made writable again, so the whole tree can go.
    const open = (path: string) => {
      const stats = lstatSync(path);
      if (!stats.isDirectory()) return;
      chmodSync(path, 0o700);
      for (const entry of readdirSync(path)) open(join(path, entry));
    };
    open(work);
    rmSync(work, { recursive: true, force: true });
  });

  return {
    files,
    resultOf(context, name) {
      const reason = skipped.get(name);
      if (reason) {
        context.test!.title += ` (skipped: ${reason})`;
        context.skip();
      }
      const result = results.get(name);
      assert.ok(result, `no result for ${name}`);
      return result;
    },
  };
}
