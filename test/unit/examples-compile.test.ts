import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";

/*
 * Every TypeScript example compiles as a user's program would: `tsc --noEmit` with
 * `pulumi-dbcloud` resolved to the built package's declarations (run `npm run build` first).
 */
const ROOT = join(__dirname, "..", "..");
const EXAMPLES = join(ROOT, "examples");

describe("examples compile against the built package", function () {
  this.timeout(120_000);

  it("tsc --noEmit -p examples passes, with every example file and the package's dist types, no src/", () => {
    let listed: string;
    try {
      listed = execFileSync(
        process.execPath,
        [require.resolve("typescript/bin/tsc"), "-p", join(EXAMPLES, "tsconfig.json"), "--listFiles"],
        { cwd: ROOT, encoding: "utf8" },
      );
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      assert.fail(`the examples do not compile:\n${stdout ?? ""}${stderr ?? ""}`);
    }
    const files = listed.split("\n").map((line) => relative(ROOT, line.trim()));
    const programs = ["basic", "ephemeral", "pipelines", "warehouse"].flatMap((dir) =>
      readdirSync(join(EXAMPLES, dir))
        .filter((name) => name.endsWith(".ts"))
        .map((name) => join("examples", dir, name)),
    );
    assert.ok(programs.length >= 4);
    for (const program of programs) assert.ok(files.includes(program), `${program} is compiled`);
    assert.ok(files.includes(join("dist", "index.d.ts")), "pulumi-dbcloud resolves to the built package");
    assert.deepEqual(
      files.filter((file) => file.startsWith(`src${"/"}`)),
      [],
      "no source file of the library is compiled with the examples",
    );
  });
});
