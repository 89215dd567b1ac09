// The dbcloud-emulator command, run as a real process: what it prints, what it serves, how it
// stops, and how it refuses a bad flag, a bad seed file or a taken port.
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator } from "../../src/emulator";
import {
  collect,
  exportedAuthorization,
  exportedEnvironment,
  spawnCli,
  startCli,
} from "../helpers/emulatorCli";

describe("emulator CLI", function () {
  // Each run starts a fresh node with ts-node.
  this.timeout(30_000);
  const running: ChildProcess[] = [];
  let workDir: string;
  before(() => {
    workDir = mkdtempSync(join(tmpdir(), "emulator-cli-"));
  });
  after(() => rmSync(workDir, { recursive: true, force: true }));
  afterEach(() => {
    for (const child of running.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  });

  it("serves a seed file, prints ready-to-paste lines, and exits 0 on SIGTERM", async () => {
    const organizationId = "6a0e3b3c-1f2d-4c5e-9a7b-8c9d0e1f2a3b";
    const serviceId = "1b2c3d4e-5f60-4718-89a0-b1c2d3e4f506";
    const primaryId = "2c3d4e5f-6071-4829-9ab1-c2d3e4f50617";
    const seedFile = join(workDir, "seed.json");
    writeFileSync(
      seedFile,
      JSON.stringify({
        keyId: "emu-key-test",
        keySecret: "test-secret-0123456789abcdef0123456789",
        services: [
          { organizationId, id: serviceId, name: "from-seed", state: "stopped" },
          { organizationId, id: primaryId, dataWarehouseId: serviceId, isPrimary: true },
          { organizationId, dataWarehouseId: serviceId, isPrimary: false, isReadonly: true },
        ],
        warehouseRules: { primaryStop: { status: 403, message: "Stop the secondaries first" } },
      }),
    );
    const { child, output } = await startCli(["--port", "0", "--seed", seedFile]);
    running.push(child);
    const stdout = output.stdout();
    const environment = exportedEnvironment(stdout);
    assert.match(environment.DBCLOUD_API_URL, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(environment.DBCLOUD_API_KEY_ID, "emu-key-test");
    assert.equal(environment.DBCLOUD_API_KEY_SECRET, "test-secret-0123456789abcdef0123456789");
    assert.equal(environment.DBCLOUD_ORGANIZATION_ID, organizationId);
    assert.match(stdout, new RegExp(`listening on ${environment.DBCLOUD_API_URL}`));
    assert.match(stdout, /key secret: +test-secret-0123456789abcdef0123456789/);
    // On by default, like the real service.
    assert.match(stdout, /rate limit: +10 requests \/ 10000 ms per key/);
    const servicePath = `/v1/organizations/${organizationId}/services/${serviceId}`;
    assert.match(
      stdout,
      new RegExp(`curl -u emu-key-test:test-secret-\\S+ ${environment.DBCLOUD_API_URL}${servicePath}`),
    );

    const response = await fetch(`${environment.DBCLOUD_API_URL}${servicePath}`, {
      headers: { authorization: exportedAuthorization(environment) },
    });
    assert.equal(response.status, 200);
    const { result } = (await response.json()) as { result: { name: string; state: string } };
    assert.equal(result.name, "from-seed");
    assert.equal(result.state, "stopped");
    // The seed's warehouse and its rule: the primary's stop is refused as configured.
    const refused = await fetch(
      `${environment.DBCLOUD_API_URL}/v1/organizations/${organizationId}/services/${primaryId}/state`,
      {
        method: "PATCH",
        headers: { authorization: exportedAuthorization(environment), "content-type": "application/json" },
        body: JSON.stringify({ command: "stop" }),
      },
    );
    assert.equal(refused.status, 403);
    assert.equal(((await refused.json()) as { error: string }).error, "Stop the secondaries first");

    child.kill("SIGTERM");
    const finished = await output.exited;
    assert.equal(finished.code, 0, finished.stderr);
    assert.match(finished.stdout, /Received SIGTERM, closing\./);
  });

  it("without --seed serves a default organization (a running and a stopped service, one endpoint); --rate-limit applies", async () => {
    const { child, output } = await startCli(["--port=0", "--rate-limit", "3/1m"]);
    running.push(child);
    const stdout = output.stdout();
    const environment = exportedEnvironment(stdout);
    const curl = /curl -u \S+ (\S+)/.exec(stdout);
    assert.ok(curl, stdout);
    assert.match(stdout, /running {2}reverse private endpoints: (\S+)/);
    assert.match(stdout, /stopped/);
    const endpointId = /reverse private endpoints: (\S+)/.exec(stdout)?.[1] ?? "";
    const headers = { authorization: exportedAuthorization(environment) };

    const read = await fetch(curl[1], { headers });
    assert.equal(read.status, 200);
    assert.equal(((await read.json()) as { result: { state: string } }).result.state, "running");
    const deleted = await fetch(`${curl[1]}/pipesReversePrivateEndpoints/${endpointId}`, {
      method: "DELETE",
      headers,
    });
    assert.equal(deleted.status, 200);
    assert.equal((await fetch(curl[1], { headers })).status, 200);
    const limited = await fetch(curl[1], { headers });
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get("retry-after")) > 0);

    child.kill("SIGINT");
    assert.equal((await output.exited).code, 0);
  });

  it("refuses a bad flag and a bad seed file with exit code 2 and a message naming the problem", async () => {
    const badSeed = join(workDir, "bad-seed.json");
    writeFileSync(
      badSeed,
      JSON.stringify({ services: [{ organizationId: "org-1", fields: [] }], colour: "red" }),
    );
    const [badFlag, badSeedRun] = await Promise.all([
      collect(spawnCli(["--bogus"])).exited,
      collect(spawnCli(["--port", "0", "--seed", badSeed])).exited,
    ]);
    assert.equal(badFlag.code, 2);
    assert.match(badFlag.stderr, /unknown flag --bogus/);
    assert.match(badFlag.stderr, /--help/);
    assert.equal(badSeedRun.code, 2);
    assert.match(
      badSeedRun.stderr,
      /bad-seed\.json: services\[0\]\.organizationId must be a uuid, got "org-1"/,
    );
    assert.match(badSeedRun.stderr, /services\[0\]\.fields must be an object/);
    assert.match(badSeedRun.stderr, /colour is not a known field/);
  });

  it("--help prints usage and exits 0; a taken port exits 1", async () => {
    const taken = await startEmulator();
    try {
      const port = new URL(taken.url).port;
      const [help, busy] = await Promise.all([
        collect(spawnCli(["--help"])).exited,
        collect(spawnCli(["--port", port])).exited,
      ]);
      assert.equal(help.code, 0);
      assert.match(help.stdout, /^Usage: dbcloud-emulator/);
      assert.match(help.stdout, /--rate-limit/);
      assert.equal(busy.code, 1);
      assert.match(busy.stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}`));
    } finally {
      await taken.close();
    }
  });
});
