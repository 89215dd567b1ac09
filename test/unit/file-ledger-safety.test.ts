import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { ledgerPath } from "../../src/api/fileLedger";
import { PROBE_LIMIT, PROBE_URL, PROBE_KEY, type ProbeCase, type ProbeResult } from "../helpers/ledgerProbe";

/*
 * The shared budget file on a machine with other users: whatever sits in the temp folder (another
 * user's folder, planted links, special files, locks that cannot be removed, a read-only folder,
 * a full disk), every call ends by its deadline, nothing is written through a link, and the
 * process keeps its budget in memory, saying so once. The calls run in a child process as a
 * second user when the tests run as root (as CI does), so that file permissions hold for it;
 * otherwise as this user, and the cases that need another owner, a device node or a mount are
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
const VICTIM = ROOT ? SECOND_USER : (process.getuid?.() ?? 0);
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

describe("rate budget file on a shared machine: hostile temp folders", function () {
  this.timeout(30_000);
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

  /** The case's result, or a skip that says why. */
  function resultOf(context: Mocha.Context, name: string): ProbeResult {
    const reason = skipped.get(name);
    if (reason) {
      context.test!.title += ` (skipped: ${reason})`;
      context.skip();
    }
    const result = results.get(name);
    assert.ok(result, `no result for ${name}`);
    return result;
  }

  /** Every call ended by its deadline (a little late at most: timers), and the budget says it keeps to memory, once. */
  function assertLocalAndInTime(result: ProbeResult, reason: RegExp): void {
    assert.ok(result.worstOverrunMs < 250, `a call ended ${result.worstOverrunMs} ms after its deadline`);
    assert.equal(result.outcomes[result.outcomes.length - 1], "granted", result.outcomes.join(", "));
    assert.equal(result.local, true, "the budget gave up the file");
    assert.equal(result.warnings.length, 1, result.warnings.join("\n"));
    assert.match(result.warnings[0], /kept in this process only/);
    assert.match(result.warnings[0], reason);
  }

  it("a fresh temp folder: the budget's file is made, in a folder only the user can enter", function () {
    const result = resultOf(this, "a fresh temp folder");
    const { folder, file } = files.get("a fresh temp folder")!;
    assert.deepEqual(result.outcomes, ["granted", "granted", "granted"]);
    assert.equal(result.local, false);
    assert.deepEqual(result.warnings, []);
    assert.equal(statSync(folder).uid, VICTIM);
    assert.equal(statSync(folder).mode & 0o777, 0o700);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal((JSON.parse(readFileSync(file, "utf8")) as { grants: number[] }).grants.length, 3);
  });

  it("another user's folder at the name, open to all, is not used", function () {
    const result = resultOf(this, "another user's folder at the name, open to all");
    assertLocalAndInTime(result, /belongs to another user/);
    assert.deepEqual(readdirSync(files.get("another user's folder at the name, open to all")!.folder), []);
  });

  it("the user's own folder left open to all is not used", function () {
    const result = resultOf(this, "the user's own folder left open to all");
    assertLocalAndInTime(result, /open to other users \(mode 777\)/);
    assert.deepEqual(readdirSync(files.get("the user's own folder left open to all")!.folder), []);
  });

  it("a link planted at the folder's name is not followed", function () {
    const result = resultOf(this, "a link planted at the folder's name");
    assertLocalAndInTime(result, /is a link/);
    assert.deepEqual(readdirSync(join(files.get("a link planted at the folder's name")!.dir, "home")), [
      "precious",
    ]);
  });

  it("a link planted at the file's name is not written through", function () {
    const result = resultOf(this, "a link planted at the file's name");
    assertLocalAndInTime(result, /a link/);
    const { dir, file } = files.get("a link planted at the file's name")!;
    assert.equal(readFileSync(join(dir, "home", "precious"), "utf8"), "keep");
    assert.ok(lstatSync(file).isSymbolicLink(), "the link itself is left alone");
  });

  it("a FIFO at the file's name neither blocks nor is used", function () {
    assertLocalAndInTime(resultOf(this, "a FIFO at the file's name"), /not a regular file/);
  });

  it("a link to /dev/zero at the file's name is not read", function () {
    assertLocalAndInTime(resultOf(this, "a link to /dev/zero at the file's name"), /a link/);
  });

  it("a device node at the file's name is not read", function () {
    assertLocalAndInTime(resultOf(this, "a device node at the file's name"), /not a regular file/);
  });

  it("a stale lock that cannot be removed makes the budget go on in memory", function () {
    const result = resultOf(this, "a stale lock that cannot be removed (the folder became read-only)");
    assertLocalAndInTime(result, /stale lock .* cannot be removed \(EACCES\)/);
    assert.deepEqual(result.outcomes, ["granted", "granted", "granted"]);
  });

  it("a lock that stays held fails calls at their deadlines, then the budget gives the file up", function () {
    const result = resultOf(this, "a lock dated in the future that cannot be removed, and short deadlines");
    assertLocalAndInTime(result, /cannot be removed \(EACCES\)/);
    assert.equal(
      result.outcomes[0],
      "deadline",
      "the first call waited for the lock until its deadline, no longer",
    );
  });

  it("a read-only folder makes the budget go on in memory", function () {
    assertLocalAndInTime(resultOf(this, "a read-only folder"), /EACCES/);
  });

  it("a full disk makes the budget go on in memory, from what it decided", function () {
    const result = resultOf(this, "a full disk");
    assertLocalAndInTime(result, /ENOSPC/);
    assert.deepEqual(result.outcomes, ["granted", "granted", "granted"]);
    assert.equal(existsSync(files.get("a full disk")!.file), false);
  });
});
