#!/usr/bin/env node
// Runs the mocha suites and ends with the plain line CI reads: "N passed, N failed". Mocha's own
// summary is not read by CI. With no arguments, every suite runs, in processes side by side
// (unit and engine; integration; fault and plugin): they mostly wait on timers, sockets and the
// processes they start, so together they take little more than the longest. The real-engine suite
// (cli) runs as one more process when the Pulumi CLI is already built (tools/pulumi/build.sh);
// otherwise one line says how to get it. Arguments name suites (unit, integration, engine, fault, plugin, cli) or single test files,
// run in this process.
"use strict";
const path = require("node:path");
const fs = require("node:fs");
const { execFileSync, spawn } = require("node:child_process");

const GROUPS = [
  ["unit", "engine"],
  ["integration"],
  ["fault", "plugin"],
  ...(toolchainBuilt() ? [["cli"]] : []),
];
const SUMMARY = /^(\d+) passed, (\d+) failed$/;

if (!process.argv.slice(2).length) runGroups();
else runSuites(process.argv.slice(2));

/** Whether the real Pulumi CLI is in its cache; asks the build script, which then builds nothing. */
function toolchainBuilt() {
  if (process.env.DBCLOUD_CLI_SUITE === "apart") {
    process.stdout.write("real-engine suite left to CI's stage of its own\n");
    return false;
  }
  try {
    execFileSync("bash", [path.join(__dirname, "..", "tools", "pulumi", "build.sh"), "--check"], {
      stdio: "ignore",
    });
    return true;
  } catch {
    process.stdout.write(
      "real-engine suite skipped: the Pulumi CLI is not built (`npm run test:cli` builds it)\n",
    );
    return false;
  }
}

/** Each group in a child process; their outputs in order, then the summed line, last. */
function runGroups() {
  const runs = GROUPS.map(
    (group) =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [__filename, ...group], { stdio: ["ignore", "pipe", "pipe"] });
        const chunks = [];
        child.stdout.on("data", (chunk) => chunks.push(chunk));
        child.stderr.on("data", (chunk) => chunks.push(chunk));
        child.on("close", (code) => resolve({ group, code, output: Buffer.concat(chunks).toString("utf8") }));
      }),
  );
  Promise.all(runs).then((results) => {
    let passed = 0;
    let failed = 0;
    for (const { group, code, output } of results) {
      const lines = output.replace(/\n$/, "").split("\n");
      const match = SUMMARY.exec(lines[lines.length - 1] ?? "");
      if (match) {
        // The group's own summary line is reworded so that the only plain one is the total.
        lines[lines.length - 1] = `(${group.join(", ")}) ${match[1]} passed, ${match[2]} failed`;
        passed += Number(match[1]);
        failed += Number(match[2]);
      }
      if (!match || (code !== 0 && Number(match[2]) === 0)) failed += 1; // a crash before its summary
      process.stdout.write(`${lines.join("\n")}\n`);
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
    process.exitCode = failed > 0 || passed === 0 ? 1 : 0;
  });
}

function runSuites(suites) {
  require("ts-node/register/transpile-only");
  const Mocha = require("mocha");
  const mocha = new Mocha({ timeout: 60000, reporter: "spec" });

  function addDir(dir) {
    if (!fs.existsSync(dir)) return;
    for (const entry of fs
      .readdirSync(dir, { withFileTypes: true })
      .sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) addDir(full);
      else if (entry.name.endsWith(".test.ts")) mocha.addFile(full);
    }
  }
  // Arguments are suites (unit, integration, engine, fault, plugin) or single test files.
  for (const suite of suites) {
    if (suite.endsWith(".ts")) mocha.addFile(path.resolve(suite));
    else addDir(path.join(__dirname, suite));
  }

  let passed = 0;
  let failed = 0;
  // Each failure's full title and first line of error, repeated just above the summary: CI keeps
  // only the tail of a long log, and mocha's own failure report sits far above it.
  const failedTitles = [];
  const runner = mocha.run((failures) => {
    // A hook failure is counted by mocha as a failure without a test; make sure it shows.
    failed = Math.max(failed, failures);
    // The fault suite's counts (test/fault/harness.ts), when it ran: one line, read by people.
    const fault = globalThis.__faultSuiteTotals;
    if (fault && fault.runs > 0) {
      process.stdout.write(
        `\nfault suite: ${fault.runs} runs, ${fault.faults} faults injected, ${fault.retries} retries, ` +
          `lost ${fault.lost}, leaks ${fault.leaks}\n`,
      );
    }
    for (const line of failedTitles) process.stdout.write(`${line}\n`);
    // Exits once the summary is out, as mocha's --exit does: a program a test ran may leave a
    // retry pending, and its late log line must not land after the summary CI reads.
    const code = failed > 0 || passed === 0 ? 1 : 0;
    process.stdout.write(`\n${passed} passed, ${failed} failed\n`, () => process.exit(code));
  });
  runner.on("pass", () => passed++);
  runner.on("fail", (test, error) => {
    failed++;
    const first = String((error && error.message) || error)
      .split("\n")[0]
      .slice(0, 300);
    failedTitles.push(`failed: ${test.fullTitle()}: ${first}`);
  });
}
