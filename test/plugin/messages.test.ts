import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { DELETION, RUN_STATE, secret, urnOf } from "./engineCalls";
import { PluginCallError } from "./pluginProcess";
import { pluginStack } from "./pluginStack";

/*
 * What the plugin says when it refuses: an import id of the wrong form or with a malformed part
 * is named with the form it should have (not taken for edited state), and a value quoted back,
 * in a Check failure or an import error, is cut to a bounded length however large it came.
 */

const ORG = randomUUID();
/** A quoted value is at most this long, with its "… (N more characters)" note and quotes. */
const QUOTE_BOUND = 200;

describe("plugin: messages name what was given, bounded", function () {
  const stack = pluginStack({
    organizationId: ORG,
    // No organization from the environment: one test imports with none configured.
    env: { DBCLOUD_ORGANIZATION_ID: "" },
  });

  const importFailure = (type: string, id: string) =>
    stack.calls.read(id, urnOf(type, "imported"), {}).then(
      () => assert.fail(`the import of ${id.slice(0, 80)} succeeded`),
      (error: PluginCallError) => error.message,
    );

  it("an import id with a malformed part names the id and the form, not the state", async function () {
    const serviceId = randomUUID();
    for (const [type, id, form] of [
      [RUN_STATE, "not-a-uuid", "a service id, or organizationId/serviceId"],
      [RUN_STATE, `${ORG.slice(1)}/${serviceId}`, "a service id, or organizationId/serviceId"],
      [DELETION, `${ORG}/not-a-uuid/rpe-1`, "organizationId/serviceId/reversePrivateEndpointId"],
      [DELETION, `${ORG}/${serviceId}/..`, "organizationId/serviceId/reversePrivateEndpointId"],
    ]) {
      const message = await importFailure(type, id);
      assert.ok(message.startsWith(`${type}: cannot import ${JSON.stringify(id)}: `), message);
      assert.ok(message.includes(`the import id is ${form}`), message);
      assert.match(message, /must be/, "the part that breaks the rule");
      assert.doesNotMatch(message, /refusing to act|pulumi refresh|edited by hand/, message);
    }
    assert.deepEqual(stack.emulator.requests, [], "nothing was sent");
  });

  it("an import id of any length is quoted cut", async function () {
    const id = "x".repeat(1024 * 1024);
    const message = await importFailure(RUN_STATE, id);
    assert.ok(message.length < 1000, `the message is ${message.length} characters`);
    assert.ok(message.includes(`"${"x".repeat(120)}… (${id.length - 120} more characters)"`), message);
  });

  it("a Check failure quotes a value of any size cut", async function () {
    const urn = urnOf(RUN_STATE, "large");
    const large = "y".repeat(1024 * 1024);
    const { failures } = await stack.calls.check(urn, {}, { serviceId: large, state: { nested: large } });
    assert.deepEqual(failures.map((f) => f.property).sort(), ["serviceId", "state"]);
    for (const { property, reason } of failures) {
      assert.match(reason, /\(got .*… \(\d+ more characters\)"?\)$/, property);
      const quote = reason.slice(reason.indexOf("(got "));
      assert.ok(quote.length < QUOTE_BOUND, `${property}: quoted ${quote.length} characters`);
    }
  });

  it("a Check or getService failure on a value the program marked secret does not quote it", async function () {
    const urn = urnOf(RUN_STATE, "secret");
    const hidden = "not-a-uuid-but-a-secret-7f3a";
    const { failures } = await stack.calls.check(
      urn,
      {},
      { serviceId: secret(hidden), state: { on: secret(hidden) } },
    );
    assert.deepEqual(failures.map((f) => f.property).sort(), ["serviceId", "state"]);
    for (const { property, reason } of failures) {
      assert.ok(!reason.includes("secret-7f3a"), `${property}: ${reason}`);
      assert.ok(reason.endsWith("(got a secret value)"), `${property}: ${reason}`);
    }
    const read = await stack.calls.invoke("dbcloud:index:getService", { serviceId: secret(hidden) });
    assert.deepEqual(read.failures, [{ property: "serviceId", reason: read.failures[0]?.reason }]);
    assert.ok(read.failures[0].reason.endsWith("(got a secret value)"), read.failures[0].reason);
  });

  it("an import by service id alone with no organization configured says so, not that the state is old", async function () {
    const settings = {
      apiUrl: stack.emulator.url,
      apiKeyId: stack.emulator.keyId,
      apiKeySecret: secret(stack.emulator.keySecret),
      rateLimit: "off",
    };
    await stack.calls.configure(settings);
    try {
      const serviceId = randomUUID();
      const message = await importFailure(RUN_STATE, serviceId);
      assert.ok(message.startsWith(`${RUN_STATE}: cannot import "${serviceId}": `), message);
      assert.match(message, /names no organization, and none is configured/);
      assert.doesNotMatch(message, /refusing to act|pulumi refresh|edited by hand/, message);
    } finally {
      await stack.calls.configure({ ...settings, organizationId: ORG });
    }
  });
});
