import assert from "node:assert/strict";
import { join } from "node:path";
import type { Emulator } from "../../src/emulator";
import { CliStack, resourceOf } from "./helpers/cliStack";
import {
  ANALYTICS,
  configureProvider,
  ENDPOINT,
  ORG,
  PROVIDER_ENV,
  requestsOf,
  startCliEmulator,
} from "./helpers/fixture";

/*
 * Adopting what exists through the real CLI: `pulumi import` of both plugin types by their
 * documented ids, after which the program that declares them previews with no change; and a
 * stack built with the dynamic resources (with and without customTimeouts) moved to the plugin's
 * types with aliases, which previews with no change.
 */

const IMPORTED = `name: dbcloud-import
runtime: yaml
resources:
  analytics:
    type: dbcloud:index:ServiceRunState
    properties:
      serviceId: ${ANALYTICS}
      state: running
  pipes:
    type: dbcloud:index:ReversePrivateEndpointDeletion
    properties:
      serviceId: ${ANALYTICS}
      reversePrivateEndpointId: ${ENDPOINT}
`;

describe("real engine: pulumi import of the plugin's types", function () {
  this.timeout(240_000);
  let emulator: Emulator;
  let stack: CliStack;

  before(async () => {
    emulator = await startCliEmulator();
    emulator.setState(ANALYTICS, "running");
    stack = new CliStack({ projectYaml: IMPORTED, env: PROVIDER_ENV });
    await stack.init();
    await configureProvider(stack, emulator);
  });
  after(async () => {
    stack?.close();
    await emulator?.close();
  });

  it("imports both by their documented ids, then previews with no change and no command", async () => {
    const importFlags = ["--yes", "--generate-code=false"];
    await stack.ok(["import", "dbcloud:index:ServiceRunState", "analytics", ANALYTICS, ...importFlags]);
    const endpointId = `${ORG}/${ANALYTICS}/${ENDPOINT}`;
    await stack.ok([
      "import",
      "dbcloud:index:ReversePrivateEndpointDeletion",
      "pipes",
      endpointId,
      ...importFlags,
    ]);
    const exported = await stack.exportStack();
    assert.equal(
      resourceOf(exported, "dbcloud:index:ServiceRunState", "analytics")?.outputs?.state,
      "running",
    );
    assert.ok(resourceOf(exported, "dbcloud:index:ReversePrivateEndpointDeletion", "pipes"));

    await stack.ok(["preview", "--expect-no-changes"]);
    assert.deepEqual(requestsOf(emulator, "PATCH"), []);
    assert.deepEqual(requestsOf(emulator, "DELETE"), []);
  });

  it("an import id of the wrong form is refused with the id and the form it needs", async () => {
    const result = await stack.run([
      "import",
      "dbcloud:index:ServiceRunState",
      "other",
      "not-a-uuid",
      "--yes",
    ]);
    assert.notEqual(result.code, 0);
    assert.match(result.stdout + result.stderr, /not-a-uuid/);
  });
});

describe("real engine: a stack moved from the dynamic resources to the plugin's types", function () {
  this.timeout(240_000);
  let emulator: Emulator;
  let stack: CliStack;

  before(async () => {
    emulator = await startCliEmulator();
    stack = new CliStack({
      projectYaml: "name: dbcloud-move\nruntime: nodejs\n",
      program: join(__dirname, "programs", "dynamic.ts"),
      env: PROVIDER_ENV,
    });
    await stack.init();
    await configureProvider(stack, emulator);
  });
  after(async () => {
    stack?.close();
    await emulator?.close();
  });

  it("previews with no change after the switch, with and without customTimeouts", async () => {
    await stack.ok(["up", "--yes"]);
    assert.equal(emulator.service(ANALYTICS)?.state, "running");
    const commandsBefore = requestsOf(emulator, "PATCH").length;

    stack.useProgram(join(__dirname, "programs", "plugin.ts"));
    const preview = await stack.run(["preview", "--expect-no-changes", "--diff"]);
    assert.equal(preview.code, 0, `no change expected:\n${preview.stdout}\n${preview.stderr}`);
    await stack.ok(["up", "--yes"]);
    const exported = await stack.exportStack();
    assert.ok(resourceOf(exported, "dbcloud:index:ServiceRunState", "analytics"));
    assert.ok(resourceOf(exported, "dbcloud:index:ServiceRunState", "staging"));
    assert.equal(requestsOf(emulator, "PATCH").length, commandsBefore, "the move sends no command");
  });
});
