import assert from "node:assert/strict";
import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { ProbeResult } from "../helpers/ledgerProbe";
import { probeHostileFolders, VICTIM } from "../helpers/hostileFolders";

/*
 * The shared budget file on a machine with other users: whatever sits in the temp folder (another
 * user's folder, planted links, special files, locks that cannot be removed, a read-only folder,
 * a full disk), every call ends by a grant or at its deadline, nothing is written through a link,
 * and the process keeps its budget in memory, saying so once. The cases and the probe that makes
 * the calls are in helpers/hostileFolders.ts.
 */

describe("rate budget file on a shared machine: hostile temp folders", function () {
  this.timeout(30_000);
  const { resultOf, files } = probeHostileFolders();

  /**
   * Every call ended by a grant or by the budget's deadline (a call held by a blocking read
   * never ends: the probe prints nothing), and the budget says it keeps to memory, once, for
   * the reason the case planted (an error of another kind reads otherwise).
   */
  function assertLocal(result: ProbeResult, reason: RegExp): void {
    assert.ok(
      result.outcomes.every((outcome) => outcome === "granted" || outcome === "deadline"),
      result.outcomes.join(", "),
    );
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
    assertLocal(result, /belongs to another user/);
    assert.deepEqual(readdirSync(files.get("another user's folder at the name, open to all")!.folder), []);
  });

  it("the user's own folder left open to all is not used", function () {
    const result = resultOf(this, "the user's own folder left open to all");
    assertLocal(result, /open to other users \(mode 777\)/);
    assert.deepEqual(readdirSync(files.get("the user's own folder left open to all")!.folder), []);
  });

  it("a link planted at the folder's name is not followed", function () {
    const result = resultOf(this, "a link planted at the folder's name");
    assertLocal(result, /is a link/);
    assert.deepEqual(readdirSync(join(files.get("a link planted at the folder's name")!.dir, "home")), [
      "precious",
    ]);
  });

  it("a link planted at the file's name is not written through", function () {
    const result = resultOf(this, "a link planted at the file's name");
    assertLocal(result, /a link/);
    const { dir, file } = files.get("a link planted at the file's name")!;
    assert.equal(readFileSync(join(dir, "home", "precious"), "utf8"), "keep");
    assert.ok(lstatSync(file).isSymbolicLink(), "the link itself is left alone");
  });

  it("a FIFO at the file's name neither blocks nor is used", function () {
    assertLocal(resultOf(this, "a FIFO at the file's name"), /not a regular file/);
  });

  it("a link to /dev/zero at the file's name is not read", function () {
    assertLocal(resultOf(this, "a link to /dev/zero at the file's name"), /a link/);
  });

  it("a device node at the file's name is not read", function () {
    assertLocal(resultOf(this, "a device node at the file's name"), /not a regular file/);
  });

  it("a stale lock that cannot be removed makes the budget go on in memory", function () {
    const result = resultOf(this, "a stale lock that cannot be removed (the folder became read-only)");
    assertLocal(result, /stale lock .* cannot be removed \(EACCES\)/);
    assert.deepEqual(result.outcomes, ["granted", "granted", "granted"]);
  });

  it("a lock that stays held fails calls at their deadlines, then the budget gives the file up", function () {
    const result = resultOf(this, "a lock dated in the future that cannot be removed, and short deadlines");
    assertLocal(result, /cannot be removed \(EACCES\)/);
    assert.equal(
      result.outcomes[0],
      "deadline",
      "the first call waited for the lock until its deadline, no longer",
    );
  });

  it("a read-only folder makes the budget go on in memory", function () {
    assertLocal(resultOf(this, "a read-only folder"), /EACCES/);
  });

  it("a full disk makes the budget go on in memory, from what it decided", function () {
    const result = resultOf(this, "a full disk");
    assertLocal(result, /ENOSPC/);
    assert.deepEqual(result.outcomes, ["granted", "granted", "granted"]);
    assert.equal(existsSync(files.get("a full disk")!.file), false);
  });
});
