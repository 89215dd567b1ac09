import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";

/*
 * package.json's `engines`, its @pulumi/pulumi peer range and the README's Requirements line say
 * what CI proves, and the same thing: each CI row (.ci/matrix.js) runs a Node major and a locked
 * @pulumi/pulumi version inside those ranges, the floor of the peer range is a row, and the
 * runtime running this very test is one the package claims.
 */

const ROOT = join(__dirname, "..", "..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  engines: { node: string };
  peerDependencies: Record<string, string>;
};
const readme = readFileSync(join(ROOT, "README.md"), "utf8");
const { ROWS } = require(join(ROOT, ".ci", "matrix.js")) as {
  ROWS: { node: number; variant: string | null }[];
};

type Version = [number, number, number];
const parse = (text: string): Version => {
  const match = /^v?(\d+)\.(\d+)\.(\d+)$/.exec(text.trim());
  assert.ok(match, `not a version: ${text}`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
};
const atLeast = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** `^a.b.c || ^d.e.f`: one caret range per major, the only form `engines` uses here. */
function caretRanges(range: string): Version[] {
  return range.split("||").map((part) => {
    const trimmed = part.trim();
    assert.ok(trimmed.startsWith("^"), `engines.node should list caret ranges: ${trimmed}`);
    return parse(trimmed.slice(1));
  });
}
const nodeClaimed = (version: Version) =>
  caretRanges(pkg.engines.node).some((floor) => floor[0] === version[0] && atLeast(version, floor) >= 0);

/** `>=a.b.c <N`: the peer range's form. */
function peerBounds(): { floor: Version; belowMajor: number } {
  const match = /^>=(\d+\.\d+\.\d+) <(\d+)$/.exec(pkg.peerDependencies["@pulumi/pulumi"]);
  assert.ok(match, `peer range should read ">=x.y.z <N": ${pkg.peerDependencies["@pulumi/pulumi"]}`);
  return { floor: parse(match[1]), belowMajor: Number(match[2]) };
}
const pulumiClaimed = (version: Version) => {
  const { floor, belowMajor } = peerBounds();
  return atLeast(version, floor) >= 0 && version[0] < belowMajor;
};

/** The @pulumi/pulumi version a CI row installs: from its lock file. */
function lockedPulumi(variant: string | null): string {
  const lock = variant
    ? join(ROOT, ".ci", "locks", `${variant}.package-lock.json`)
    : join(ROOT, "package-lock.json");
  const parsed = JSON.parse(readFileSync(lock, "utf8")) as { packages: Record<string, { version: string }> };
  return parsed.packages["node_modules/@pulumi/pulumi"].version;
}

describe("requirements: package.json, README and CI say the same, and what CI runs", () => {
  const line = readme.split("\n").find((l) => l.startsWith("**Requirements:**"));

  it("the README's Requirements line quotes engines and the peer range exactly", () => {
    assert.ok(line, "README has a **Requirements:** line");
    assert.ok(line.includes(`Node.js \`${pkg.engines.node}\``), line);
    assert.ok(line.includes(`\`@pulumi/pulumi\` \`${pkg.peerDependencies["@pulumi/pulumi"]}\``), line);
  });

  it("every CI row runs a claimed Node major with a claimed, locked @pulumi/pulumi, named in the README", () => {
    const majors = caretRanges(pkg.engines.node).map((v) => v[0]);
    assert.deepEqual(
      [...new Set(ROWS.map((r) => r.node))].sort(),
      [...majors].sort(),
      "one claimed major per row major",
    );
    for (const row of ROWS) {
      const pulumi = lockedPulumi(row.variant);
      assert.ok(
        pulumiClaimed(parse(pulumi)),
        `row ${row.node}/${row.variant}: @pulumi/pulumi ${pulumi} is in the peer range`,
      );
      assert.ok(
        line?.includes(String(row.node)) && line.includes(pulumi),
        `README names Node ${row.node} and ${pulumi}`,
      );
    }
    const floor = peerBounds().floor.join(".");
    assert.ok(
      ROWS.some((row) => lockedPulumi(row.variant) === floor),
      `the peer range's floor ${floor} is a CI row`,
    );
  });

  it("this runtime and the installed @pulumi/pulumi are ones the package claims", () => {
    assert.ok(
      nodeClaimed(parse(process.version)),
      `Node ${process.version} is not in engines ${pkg.engines.node}`,
    );
    const installed = (
      JSON.parse(readFileSync(require.resolve("@pulumi/pulumi/package.json"), "utf8")) as { version: string }
    ).version;
    assert.ok(pulumiClaimed(parse(installed)), `@pulumi/pulumi ${installed} is not in the peer range`);
  });

  it("the range checks themselves reject what is not claimed", () => {
    assert.equal(nodeClaimed([21, 0, 0]), false);
    assert.equal(nodeClaimed([20, 0, 0]), false);
    assert.equal(pulumiClaimed([3, 138, 0]), false);
    assert.equal(pulumiClaimed([4, 0, 0]), false);
    assert.equal(pulumiClaimed(peerBounds().floor), true);
  });
});

describe("lock files in step with package.json", () => {
  // npm ci refuses a lock whose root no longer matches package.json: CI would fail minutes in.
  // Checked here in milliseconds, so a dependency change without `node .ci/lock-variants.js` fails npm test.
  const root = join(__dirname, "..", "..");
  const rootOf = (lockFile: string) =>
    (JSON.parse(readFileSync(lockFile, "utf8")) as { packages: Record<string, Record<string, unknown>> })
      .packages[""];
  const pick = (pkg: Record<string, unknown>) => ({
    dependencies: pkg.dependencies ?? {},
    devDependencies: pkg.devDependencies ?? {},
    peerDependencies: pkg.peerDependencies ?? {},
  });

  it("package-lock.json records package.json's dependencies", () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    assert.deepEqual(pick(rootOf(join(root, "package-lock.json"))), pick(pkg));
  });

  it("every CI variant's lock records package.json as that variant changes it", function () {
    // In a variant's CI row package.json is already that variant's: the check above covers it.
    if (process.env.DBCLOUD_CI_VARIANT) this.skip();
    const { variants, variantPackageJson, lockPath } = require("../../.ci/lock-variants.js");
    const names = Object.keys(variants).filter((name) => name !== "//");
    assert.ok(names.length > 0);
    for (const name of names) {
      assert.deepEqual(pick(rootOf(lockPath(name))), pick(JSON.parse(variantPackageJson(name))), name);
    }
  });
});
