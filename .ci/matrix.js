#!/usr/bin/env node
// CI's runtime matrix, called by .ci/run. Each row installs one dependency set with `npm ci` and
// runs the README's test command (`npm test`) on one Node.js major; the package-manager stage
// then installs the packed tarball with npm, pnpm and yarn, and the real-engine stage builds (or
// reuses) the Pulumi CLI and runs test/cli once, on the machine's Node, beside the first row's
// install; the rows' `npm test` leaves that suite to it. Rows run one after another (the
// machine has 2 shared cores). It prints one line per row with its counts, then the plain
// "N passed, N failed" line over all of them, last, and exits non-zero on any failure.
"use strict";
const { execFileSync, spawn } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { variantPackageJson, lockPath } = require("./lock-variants");

const root = path.join(__dirname, "..");

/**
 * The matrix. `variant` null is the committed package-lock.json (what `npm ci` installs for
 * everyone working on the repository); other names are dependency sets of .ci/variants.json.
 * Node 20 is the machine's own node; the others come from .ci/node-runtime.sh.
 */
const ROWS = [
  { node: 20, variant: null, realEngine: true },
  { node: 20, variant: "pulumi-3.139" },
  { node: 22, variant: "pulumi-3.270" },
  { node: 24, variant: "pulumi-3.270", packaging: true },
  { node: 26, variant: "pulumi-3.270" },
];

/** `node .ci/matrix.js 22 20:pulumi-3.139` runs only the rows named (major, or major:set). */
function selected(row) {
  const wanted = process.argv.slice(2);
  return !wanted.length || wanted.includes(String(row.node)) || wanted.includes(`${row.node}:${row.variant}`);
}

const SUMMARY = /^(\d+) passed, (\d+) failed$/;

function nodeBinary(major) {
  if (Number(process.versions.node.split(".")[0]) === major) return process.execPath;
  return execFileSync("bash", [path.join(__dirname, "node-runtime.sh"), String(major)], {
    cwd: root,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }).trim();
}

/** A copy of the working tree (tracked and unignored files) in a temporary directory. */
function copyOfTree() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dbcloud-ci-"));
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
  })
    .split("\0")
    .filter(Boolean);
  for (const file of files) {
    const from = path.join(root, file);
    if (!fs.existsSync(from)) continue; // deleted but not yet committed
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.copyFileSync(from, path.join(dir, file));
  }
  return dir;
}

/** Runs a command, echoing its output, and resolves with its exit code and last summary line. */
function run(command, args, options) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
    let summary;
    let pending = "";
    const failures = []; // test/run.js's "failed: <title>: <error>" lines
    const note = (line) => {
      if (SUMMARY.test(line.trim())) summary = line.trim();
      if (line.startsWith("failed: ") && failures.length < 20) failures.push(line.slice(0, 400));
    };
    child.stdout.on("data", (chunk) => {
      process.stdout.write(chunk);
      pending += chunk.toString("utf8");
      const lines = pending.split("\n");
      pending = lines.pop();
      for (const line of lines) note(line);
    });
    child.stderr.on("data", (chunk) => process.stderr.write(chunk));
    child.on("close", (code) => {
      note(pending);
      resolve({ code, summary, failures });
    });
  });
}

function counts(result) {
  const match = result.summary && SUMMARY.exec(result.summary);
  let passed = match ? Number(match[1]) : 0;
  let failed = match ? Number(match[2]) : 0;
  // A crash before the summary, or a non-zero exit the counts do not explain, is a failure too.
  if (result.code !== 0 && failed === 0) failed = 1;
  if (passed === 0 && failed === 0) failed = 1;
  return { passed, failed };
}

async function main() {
  const started = Date.now();
  const lines = [];
  let passed = 0;
  let failed = 0;
  const temporary = [];
  const record = (label, result, ms) => {
    const c = counts(result);
    passed += c.passed;
    failed += c.failed;
    lines.push(`${label}: ${c.passed} passed, ${c.failed} failed (${Math.round(ms / 1000)} s)`);
    for (const failure of result.failures ?? []) lines.push(`  ${failure}`);
  };

  try {
    for (const row of ROWS.filter(selected)) {
      const rowStarted = Date.now();
      let label = `node ${row.node}`;
      try {
        const bin = nodeBinary(row.node);
        // DBCLOUD_CI_VARIANT tells the tests that package.json is a variant's, not the committed one.
        const env = {
          ...process.env,
          PATH: `${path.dirname(bin)}${path.delimiter}${process.env.PATH}`,
          DBCLOUD_CI_VARIANT: row.variant ?? "",
          DBCLOUD_CLI_SUITE: "apart",
        };
        let cwd = root;
        if (row.variant) {
          cwd = copyOfTree();
          temporary.push(cwd);
          fs.writeFileSync(path.join(cwd, "package.json"), variantPackageJson(row.variant));
          fs.copyFileSync(lockPath(row.variant), path.join(cwd, "package-lock.json"));
        }
        const version = execFileSync(bin, ["--version"], { encoding: "utf8" }).trim();
        console.log(`\n=== ${version}, ${row.variant ?? "package-lock.json"} (${cwd}) ===`);
        const install = await run("npm", ["ci", "--no-audit", "--no-fund"], { cwd, env });
        if (install.code !== 0) {
          record(`${label} (${version}), npm ci failed`, { code: 1 }, Date.now() - rowStarted);
          continue;
        }
        const pulumi = JSON.parse(
          fs.readFileSync(path.join(cwd, "node_modules", "@pulumi", "pulumi", "package.json"), "utf8"),
        ).version;
        label = `node ${version.slice(1)} x @pulumi/pulumi ${pulumi}`;
        record(label, await run("npm", ["test"], { cwd, env }), Date.now() - rowStarted);

        if (row.realEngine) {
          const stageStarted = Date.now();
          console.log(
            `\n=== real engine: the Pulumi CLI built from its Go modules, test/cli on ${version} ===`,
          );
          const built = await run("bash", ["tools/pulumi/build.sh"], { cwd, env });
          // The Python programs' virtualenv (the Pulumi SDK from PyPI), built or reused like the CLI.
          const venv =
            built.code === 0 ? await run("bash", ["tools/pulumi/python-venv.sh"], { cwd, env }) : built;
          const result = venv.code === 0 ? await run(bin, ["test/run.js", "cli"], { cwd, env }) : venv;
          record(`real engine (pulumi CLI) on ${label}`, result, Date.now() - stageStarted);
          const checkStarted = Date.now();
          const sdk = await run("bash", ["tools/pulumi/sdk.sh", "--check"], { cwd, env });
          record("sdk/ regenerated from the plugin's schema, no difference", sdk, Date.now() - checkStarted);
        }
        if (row.packaging) {
          // The packed tarball installed from the registry with npm, pnpm and yarn: needs the
          // network, so it is a stage of its own rather than part of `npm test`.
          const stageStarted = Date.now();
          console.log(`\n=== package managers, ${version}, @pulumi/pulumi ${pulumi} ===`);
          record(
            `package managers (npm, pnpm, yarn) on ${label}`,
            await run(bin, ["test/run.js", "packaging"], { cwd, env }),
            Date.now() - stageStarted,
          );
        }
      } catch (error) {
        console.error(error);
        record(`${label}: ${error.message}`, { code: 1 }, Date.now() - rowStarted);
      }
    }
  } finally {
    for (const dir of temporary) fs.rmSync(dir, { recursive: true, force: true });
  }

  console.log(`\nCI matrix (${Math.round((Date.now() - started) / 1000)} s):`);
  for (const line of lines) console.log(line);
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed > 0 || passed === 0 ? 1 : 0;
}

module.exports = { ROWS };
if (require.main === module) main();
