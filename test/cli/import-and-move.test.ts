import assert from "node:assert/strict";
import { join } from "node:path";
import { resourceOf } from "./helpers/cliStack";
import { ANALYTICS, cliSuite, ENDPOINT, ORG, requestsOf } from "./helpers/fixture";

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
  const cli = cliSuite({ project: { yaml: IMPORTED } });
  before(() => cli.emulator.setState(ANALYTICS, "running"));

  it("imports both by their documented ids, then previews with no change and no command", async () => {
    const importFlags = ["--yes", "--generate-code=false"];
    await cli.stack.ok(["import", "dbcloud:index:ServiceRunState", "analytics", ANALYTICS, ...importFlags]);
    const endpointId = `${ORG}/${ANALYTICS}/${ENDPOINT}`;
    await cli.stack.ok([
      "import",
      "dbcloud:index:ReversePrivateEndpointDeletion",
      "pipes",
      endpointId,
      ...importFlags,
    ]);
    const exported = await cli.stack.exportStack();
    assert.equal(
      resourceOf(exported, "dbcloud:index:ServiceRunState", "analytics")?.outputs?.state,
      "running",
    );
    assert.ok(resourceOf(exported, "dbcloud:index:ReversePrivateEndpointDeletion", "pipes"));

    await cli.stack.ok(["preview", "--expect-no-changes"]);
    assert.deepEqual(requestsOf(cli.emulator, "PATCH"), []);
    assert.deepEqual(requestsOf(cli.emulator, "DELETE"), []);
  });

  it("an import id of the wrong form is refused with the id and the form it needs", async () => {
    const result = await cli.stack.run([
      "import",
      "dbcloud:index:ServiceRunState",
      "other",
      "not-a-uuid",
      "--yes",
    ]);
    assert.notEqual(result.code, 0);
    assert.match(result.stdout + result.stderr, /cannot import "not-a-uuid": the import id is a service id/);
    assert.doesNotMatch(result.stdout + result.stderr, /refresh/, "the stack's state is not blamed");
  });
});

describe("real engine: a stack moved from the dynamic resources to the plugin's types", function () {
  this.timeout(240_000);
  const cli = cliSuite({
    project: { yaml: "name: dbcloud-move\nruntime: nodejs\n" },
    program: join(__dirname, "programs", "dynamic.ts"),
  });

  it("previews with no change after the switch, with and without customTimeouts", async () => {
    await cli.stack.ok(["up", "--yes"]);
    assert.equal(cli.emulator.service(ANALYTICS)?.state, "running");
    const commandsBefore = requestsOf(cli.emulator, "PATCH").length;

    cli.stack.useProgram(join(__dirname, "programs", "plugin.ts"));
    const preview = await cli.stack.run(["preview", "--expect-no-changes", "--diff"]);
    assert.equal(preview.code, 0, `no change expected:\n${preview.stdout}\n${preview.stderr}`);
    await cli.stack.ok(["up", "--yes"]);
    const exported = await cli.stack.exportStack();
    assert.ok(resourceOf(exported, "dbcloud:index:ServiceRunState", "analytics"));
    assert.ok(resourceOf(exported, "dbcloud:index:ServiceRunState", "staging"));
    assert.equal(requestsOf(cli.emulator, "PATCH").length, commandsBefore, "the move sends no command");
  });
});
