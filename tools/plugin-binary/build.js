#!/usr/bin/env node
/*
 * `npm run build:plugin-binary`: the provider plugin as one executable that needs no Node.js on
 * the machine, for the platform this runs on (linux-x64 in CI). Three steps, Node's own
 * single-executable recipe: esbuild bundles the built plugin (dist/plugin/main.js) and everything
 * it requires into one file; `node --experimental-sea-config` turns that file into a blob; postject
 * injects the blob into a copy of this Node binary. Prints the executable's path on its last line.
 *
 * Usage: node tools/plugin-binary/build.js [out dir]   (default: dist-binary/<platform>-<arch>)
 */
"use strict";
const { execFileSync, spawnSync } = require("node:child_process");
const {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} = require("node:fs");
const { tmpdir } = require("node:os");
const { dirname, join, resolve } = require("node:path");
const esbuild = require("esbuild");

const ROOT = join(__dirname, "..", "..");
const OUT = resolve(process.argv[2] ?? join(ROOT, "dist-binary", `${process.platform}-${process.arch}`));
const EXECUTABLE = join(
  OUT,
  process.platform === "win32" ? "pulumi-resource-dbcloud.exe" : "pulumi-resource-dbcloud",
);
// The fuse postject flips so that Node runs the injected blob: fixed by Node's SEA support.
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

/*
 * src/plugin/rpc.ts loads gRPC and google-protobuf from the copy @pulumi/pulumi resolves, at run
 * time, so that messages and stubs share one copy in a user's install. A bundle has no run time
 * resolution: this resolves those same ids from @pulumi/pulumi's folder at build time instead.
 */
const fromPulumi = {
  name: "from-pulumi",
  setup(build) {
    const pulumiDir = dirname(require.resolve("@pulumi/pulumi/package.json", { paths: [ROOT] }));
    build.onLoad({ filter: /[\\/]dist[\\/]plugin[\\/]rpc\.js$/ }, ({ path }) => {
      const source = readFileSync(path, "utf8");
      const calls = /fromPulumi\(\s*("[^"]+")\s*\)/g;
      const folder = 'require.resolve("@pulumi/pulumi/package.json")';
      if (!calls.test(source) || !source.includes(folder)) throw new Error(`${path}: not the expected shape`);
      const rewritten = source
        .replace(folder, JSON.stringify(join(pulumiDir, "package.json")))
        .replace(
          calls,
          (_, id) => `require(${JSON.stringify(require.resolve(JSON.parse(id), { paths: [pulumiDir] }))})`,
        );
      return { contents: rewritten, loader: "js", resolveDir: dirname(path) };
    });
  },
};

async function build(work) {
  mkdirSync(OUT, { recursive: true });
  rmSync(EXECUTABLE, { force: true });
  const bundle = join(work, "plugin.js");
  await esbuild.build({
    entryPoints: [join(ROOT, "dist", "plugin", "main.js")],
    bundle: true,
    platform: "node",
    target: `node${process.versions.node.split(".")[0]}`,
    format: "cjs",
    outfile: bundle,
    plugins: [fromPulumi],
    logLevel: "warning",
  });
  const blob = join(work, "plugin.blob");
  const seaConfig = join(work, "sea-config.json");
  // The code cache puts the compiled bundle into the blob, so a start skips compiling it.
  writeFileSync(
    seaConfig,
    JSON.stringify({ main: bundle, output: blob, disableExperimentalSEAWarning: true, useCodeCache: true }),
  );
  execFileSync(process.execPath, ["--experimental-sea-config", seaConfig], { stdio: "inherit" });
  copyFileSync(process.execPath, EXECUTABLE);
  chmodSync(EXECUTABLE, 0o755);
  const postject = require.resolve("postject/dist/cli.js", { paths: [ROOT] });
  // postject's ELF library warns about the Node binary's notes on every run; its output shows on failure only.
  const injected = spawnSync(
    process.execPath,
    [postject, EXECUTABLE, "NODE_SEA_BLOB", blob, "--sentinel-fuse", SEA_FUSE],
    { encoding: "utf8" },
  );
  if (injected.status !== 0) throw new Error(`postject failed:\n${injected.stdout}${injected.stderr}`);
}

const work = mkdtempSync(join(tmpdir(), "plugin-binary-"));
build(work)
  .then(() => console.log(EXECUTABLE))
  .catch((error) => {
    console.error(`build:plugin-binary: ${error.message}`);
    process.exitCode = 1;
  })
  .finally(() => rmSync(work, { recursive: true, force: true }));
