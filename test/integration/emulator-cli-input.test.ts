// The dbcloud-emulator command's input, read in this process: every usage error names its flag,
// and a seed file's every bad field is named with the file.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { EmulatorInputError } from "../../src/emulator";
import { CliUsageError, parseCliArgs } from "../../src/emulator/cli/args";
import { loadSeedFile } from "../../src/emulator/cli/seed-file";

describe("emulator CLI", function () {
  let workDir: string;
  before(() => {
    workDir = mkdtempSync(join(tmpdir(), "emulator-cli-"));
  });
  after(() => rmSync(workDir, { recursive: true, force: true }));

  it("names the flag in every usage error", () => {
    const cases: Array<[string[], RegExp]> = [
      [["--port", "abc"], /^--port must be an integer from 0 to 65535, got "abc"$/],
      [["--port", "70000"], /^--port must be an integer from 0 to 65535/],
      [["--seed"], /^--seed needs a value$/],
      [["--host="], /^--host needs a value$/],
      [["--rate-limit", "lots"], /^--rate-limit must be N\/DURATION/],
      [["--rate-limit", "0/10s"], /^--rate-limit must be N\/DURATION/],
      [["serve"], /^unexpected argument "serve"/],
    ];
    for (const [args, message] of cases) {
      assert.throws(
        () => parseCliArgs(args),
        (error: Error) => error instanceof CliUsageError && message.test(error.message),
      );
    }
    assert.deepEqual(parseCliArgs([]), { host: "127.0.0.1", port: 8787, help: false });
    assert.deepEqual(
      parseCliArgs(["--rate-limit", "5/500ms", "--host", "0.0.0.0", "--seed=s.json", "--port=1"]),
      {
        host: "0.0.0.0",
        port: 1,
        help: false,
        seedFile: "s.json",
        rateLimit: { requests: 5, windowMs: 500 },
      },
    );
    assert.equal(parseCliArgs(["--rate-limit", "off"]).rateLimit, false);
    assert.deepEqual(parseCliArgs(["--rate-limit", "100/1m"]).rateLimit, { requests: 100, windowMs: 60_000 });
  });

  it("reads seed files, naming the file and every bad field", () => {
    assert.throws(
      () => loadSeedFile(join(workDir, "missing.json")),
      /seed file .*missing\.json cannot be read/,
    );
    const notJson = join(workDir, "not-json.json");
    writeFileSync(notJson, "{");
    assert.throws(() => loadSeedFile(notJson), /not-json\.json: is not valid JSON/);
    const invalid = join(workDir, "invalid.json");
    writeFileSync(
      invalid,
      JSON.stringify({
        keyId: "a:b",
        transitions: { starting: -1 },
        rateLimit: { requests: 10 },
        services: [
          { organizationId: "6a0e3b3c-1f2d-4c5e-9a7b-8c9d0e1f2a3b", reversePrivateEndpointIds: [""] },
        ],
      }),
    );
    assert.throws(
      () => loadSeedFile(invalid),
      (error: EmulatorInputError) =>
        error.issues.length === 4 &&
        error.issues.every((issue) => issue.includes("invalid.json: ")) &&
        /keyId must be a non-empty string without ":"/.test(error.message) &&
        /transitions.starting must be a number of milliseconds >= 0, got -1/.test(error.message) &&
        /rateLimit.windowMs must be a number of milliseconds > 0/.test(error.message) &&
        /services\[0\]\.reversePrivateEndpointIds\[0\] must be a non-empty string/.test(error.message),
    );
    const repeated = join(workDir, "repeated.json");
    const organizationId = "6a0e3b3c-1f2d-4c5e-9a7b-8c9d0e1f2a3b";
    const id = "1b2c3d4e-5f60-4718-89a0-b1c2d3e4f506";
    writeFileSync(
      repeated,
      JSON.stringify({
        services: [
          { organizationId, id },
          { organizationId, id },
        ],
      }),
    );
    assert.throws(() => loadSeedFile(repeated), /services\[1\]\.id repeats services\[0\]\.id/);
    const example = loadSeedFile(resolve(__dirname, "../../examples/emulator-seed.json"));
    assert.ok(example.services.length >= 2);
  });
});
