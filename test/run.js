#!/usr/bin/env node
// Runs every mocha suite in one process and ends with the plain line CI reads:
// "N passed, N failed". Mocha's own summary is not read by CI.
"use strict";
require("ts-node/register/transpile-only");
const path = require("node:path");
const fs = require("node:fs");
const Mocha = require("mocha");

const suites = process.argv.slice(2).length
  ? process.argv.slice(2)
  : ["unit", "integration", "engine", "fault"];
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
// Arguments are suites (unit, integration, engine, fault) or single test files.
for (const suite of suites) {
  if (suite.endsWith(".ts")) mocha.addFile(path.resolve(suite));
  else addDir(path.join(__dirname, suite));
}

let passed = 0;
let failed = 0;
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
  process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
  process.exitCode = failed > 0 || passed === 0 ? 1 : 0;
});
runner.on("pass", () => passed++);
runner.on("fail", () => failed++);
