#!/usr/bin/env node
// Regenerates .ci/locks/<name>.package-lock.json for every dependency set of .ci/variants.json
// (or the names given): package.json with that set's devDependencies, resolved by npm starting
// from the committed package-lock.json, so everything the set does not change stays as locked.
// CI installs them with `npm ci`, which refuses a lock that no longer matches package.json.
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const root = path.join(__dirname, "..");
const variants = JSON.parse(fs.readFileSync(path.join(__dirname, "variants.json"), "utf8"));

/** package.json as the dependency set `name` changes it. */
function variantPackageJson(name) {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
  const variant = variants[name];
  if (!variant || name === "//") throw new Error(`no dependency set "${name}" in .ci/variants.json`);
  for (const [dep, range] of Object.entries(variant.devDependencies)) {
    if (!(dep in pkg.devDependencies)) throw new Error(`${name}: ${dep} is not a devDependency`);
    pkg.devDependencies[dep] = range;
  }
  return JSON.stringify(pkg, null, 2) + "\n";
}

function lockPath(name) {
  return path.join(__dirname, "locks", `${name}.package-lock.json`);
}

module.exports = { variants, variantPackageJson, lockPath };

if (require.main === module) {
  const names = process.argv.slice(2).length
    ? process.argv.slice(2)
    : Object.keys(variants).filter((n) => n !== "//");
  for (const name of names) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `lock-${name}-`));
    try {
      fs.writeFileSync(path.join(dir, "package.json"), variantPackageJson(name));
      fs.copyFileSync(path.join(root, "package-lock.json"), path.join(dir, "package-lock.json"));
      execFileSync(
        "npm",
        ["install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
        { cwd: dir, stdio: "inherit" },
      );
      fs.copyFileSync(path.join(dir, "package-lock.json"), lockPath(name));
      console.log(
        `${path.relative(root, lockPath(name))}: ${JSON.stringify(variants[name].devDependencies)}`,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
}
