import assert from "node:assert/strict";
import { statSync } from "node:fs";
import { startEmulator, type Emulator } from "../../src/emulator";
import { PythonStack, pythonToolchain, type PythonToolchain } from "./helpers/pythonStack";

/*
 * examples/python on the committed Python SDK (the wheel built from sdk/python), under the real
 * CLI, with the plugin's single executable as the provider and no Node.js anywhere on the CLI's
 * PATH: the Python user's whole install, as docs/plugin.md gives it.
 */

const ORG = "5f0c3a52-8d1e-4b7a-9c63-0e2f7d4a1b90";
const SERVICE = "0b6f2f1e-3c4d-4e5f-8a9b-1c2d3e4f5a60";
const TYPE = "dbcloud:index:ServiceRunState";

interface StackResource {
  urn: string;
  type: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}
interface StackExport {
  deployment: { resources?: StackResource[] };
}

const toolchain = pythonToolchain();

describe("real engine: examples/python on sdk/python and the single-executable plugin, no Node.js", function () {
  this.timeout(300_000);
  let emulator: Emulator;
  let stack: PythonStack;
  const printed: string[] = [];

  const pulumi = async (...args: string[]) => {
    const result = await stack.ok(...args);
    printed.push(result.stdout, result.stderr);
    return result;
  };
  const exported = async () => JSON.parse((await pulumi("stack", "export")).stdout) as StackExport;
  const analytics = async () =>
    (await exported()).deployment.resources?.find((r) => r.type === TYPE && r.urn.endsWith("::analytics"));
  const commands = () =>
    emulator.requests.filter((r) => r.method === "PATCH" && r.serviceId === SERVICE).map((r) => r.command);

  before(async function () {
    if (typeof toolchain === "string") {
      console.log(`      skipped: ${toolchain}`);
      this.skip();
    }
    emulator = await startEmulator({
      transitions: { starting: 1500, stopping: 1500 },
      rateLimit: { requests: 200, windowMs: 1000 },
      services: [{ organizationId: ORG, id: SERVICE, name: "analytics", state: "stopped" }],
    });
    // The provider's waits scaled down (a 5 s poll becomes 250 ms); the engine hands this to the plugin.
    stack = new PythonStack(toolchain as PythonToolchain, "python", { DBCLOUD_TIME_SCALE: "0.05" });
    stack.buildPlugin();
    stack.installSdk();
    await stack.startProgram();
    await pulumi("stack", "init", "dev");
    await pulumi("config", "set", "dbcloud:apiUrl", emulator.url);
    await pulumi("config", "set", "dbcloud:apiKeyId", emulator.keyId);
    await pulumi("config", "set", "--secret", "dbcloud:apiKeySecret", emulator.keySecret);
    await pulumi("config", "set", "dbcloud:organizationId", ORG);
    await pulumi("config", "set", "dbcloud:rateLimit", "200/1s");
    await pulumi("config", "set", "serviceId", SERVICE);
    // Day all day: the desired state does not follow the clock of the machine running the test.
    await pulumi("config", "set", "startAtHour", "0");
    await pulumi("config", "set", "stopAtHour", "24");
  });
  after(async () => {
    stack?.close();
    await emulator?.close();
  });

  it("runs with no node on the CLI's PATH, and the plugin is one executable", () => {
    assert.equal(stack.onPath("node"), false);
    assert.equal(stack.onPath("pulumi-resource-dbcloud"), false, "the plugin comes from Pulumi.yaml");
    assert.ok(statSync(`${stack.pluginDir}/pulumi-resource-dbcloud`).size > 0);
  });

  it("previews without sending a command", async () => {
    await pulumi("preview");
    assert.deepEqual(commands(), []);
  });

  it("up starts the service; refresh sees it stopped outside Pulumi; up starts it again", async () => {
    const up = await pulumi("up", "--yes", "--skip-preview");
    assert.match(up.stdout, /databaseVersion\s*:\s*"/, "getService's output reached the program");
    assert.equal(emulator.service(SERVICE)?.state, "running");
    const created = await analytics();
    assert.equal(created?.outputs?.observedState, "running");
    assert.equal(created?.outputs?.serviceName, "analytics");
    // The SDK asks for the plugin at its own version, which the plugin reports back.
    const provider = (await exported()).deployment.resources?.find(
      (r) => r.type === "pulumi:providers:dbcloud",
    );
    assert.equal(provider?.inputs?.version, "0.2.0");

    emulator.setState(SERVICE, "stopped");
    await pulumi("refresh", "--yes", "--skip-preview");
    assert.equal((await analytics())?.outputs?.observedState, "stopped");
    await pulumi("up", "--yes", "--skip-preview");
    assert.equal(emulator.service(SERVICE)?.state, "running");
    assert.deepEqual(commands(), ["start", "start"]);
  });

  it("stops the service when the night begins, and leaves it on destroy", async () => {
    await pulumi("config", "set", "stopAtHour", "0");
    await pulumi("up", "--yes", "--skip-preview");
    assert.equal(emulator.service(SERVICE)?.state, "stopped");
    assert.deepEqual(commands(), ["start", "start", "stop"]);
    const before = emulator.requests.length;
    await pulumi("destroy", "--yes", "--skip-preview");
    assert.deepEqual(
      emulator.requests.slice(before).filter((r) => r.method !== "GET"),
      [],
      "onDestroy: leave sends nothing",
    );
    assert.equal(await analytics(), undefined);
  });

  it("keeps the key's secret out of the state and the CLI's output", () => {
    for (const text of [...stack.backendFiles(), ...printed])
      assert.ok(!text.includes(emulator.keySecret), "the secret leaked");
  });
});
