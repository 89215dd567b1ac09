import assert from "node:assert/strict";
import * as pulumi from "@pulumi/pulumi";
import { ServiceRunState } from "../../src";
import { captureProgram } from "../../src/engine-driver/capture";
import { EngineStack } from "../../src/engine-driver/stack";
import { startProviderHost } from "../../src/engine-driver/host";
import {
  baseConfig,
  byName,
  lastSeq,
  ORG,
  requestsAbout,
  requestsSince,
  SECRET_KEYS,
  sharedHost,
} from "../helpers/exampleStack";
import { ROOT } from "../helpers/repoFiles";

// Check failures, init failures and secrets through the real dynamic-provider host, on programs
// of the tests' own: each test seeds its own service.

describe("engine: check failures, init failures and secrets through the real host", function () {
  this.timeout(60_000);
  const shared = sharedHost({ transitions: { starting: 2_500 } }, "engine-test");

  const capture = (program: () => void) =>
    captureProgram(program, {
      project: "engine-test",
      stack: "test",
      config: baseConfig(shared.emulator),
      secretKeys: SECRET_KEYS,
    });

  /** A stopped service under a fresh id. */
  const seedStopped = (name: string) =>
    shared.emulator.addService({ organizationId: ORG, name, state: "stopped" }).id;

  it("bad inputs come back from preview as check failures naming each property, before any request", async () => {
    const resources = await capture(() => {
      new ServiceRunState("bad", {
        serviceId: "not-a-uuid",
        state: "paused" as "running",
        timeoutSeconds: -5,
      });
    });
    const stack = new EngineStack(shared.host, {
      config: baseConfig(shared.emulator),
      secretKeys: SECRET_KEYS,
    });
    const mark = lastSeq(shared.emulator);
    const result = await stack.preview(resources);
    assert.equal(result.ok, false);
    const failures = result.steps[0].failures!;
    assert.deepEqual(failures.map((f) => f.property).sort(), ["serviceId", "state", "timeoutSeconds"]);
    assert.match(failures.find((f) => f.property === "state")!.reason, /"running" or "stopped".*paused/);
    assert.deepEqual(requestsSince(shared.emulator, mark), [], "no request of any kind during the preview");
  });

  it("a deadline passed after the start was accepted records the resource; the next up finishes the job", async () => {
    const service = seedStopped("slow");
    const resources = await capture(() => {
      new ServiceRunState("slow", { serviceId: service, state: "running", timeoutSeconds: 0.5 });
    });
    const stack = new EngineStack(shared.host, {
      config: baseConfig(shared.emulator),
      secretKeys: SECRET_KEYS,
    });
    const first = await stack.up(resources);
    assert.equal(first.ok, false);
    assert.equal(first.steps[0].kind, "failed");
    assert.match(first.steps[0].error!, /Timed out .* to be running after sending start: it is starting/);
    const recorded = byName(stack, "slow");
    assert.ok(recorded, "the resource is in the state despite the failure");
    assert.equal(recorded.id, service);
    assert.ok(recorded.initErrors?.length);
    assert.equal(recorded.outputs.observedState, "starting");
    assert.equal(typeof recorded.outputs.__provider, "string", "init failure properties carry __provider");
    // The command travels through the host in the init failure's properties, and on to the next up.
    const last = recorded.outputs.lastCommand as { command: string; sentAt: string; seen: boolean };
    assert.equal(last.command, "start");
    assert.ok(Number.isFinite(Date.parse(last.sentAt)), last.sentAt);
    assert.equal(last.seen, true, "a poll showed starting");

    // Once the service got there, the next up carries on from the recorded state: no second start.
    while (shared.emulator.service(service)?.state !== "running")
      await new Promise((r) => setTimeout(r, 100));
    const mark = lastSeq(shared.emulator);
    const second = await stack.up(resources);
    assert.ok(second.ok, JSON.stringify(second.steps));
    assert.equal(second.steps[0].kind, "update");
    assert.equal(byName(stack, "slow")!.outputs.observedState, "running");
    assert.equal(byName(stack, "slow")!.initErrors, undefined);
    assert.deepEqual(byName(stack, "slow")!.outputs.lastCommand, last, "kept: this up sent nothing");
    assert.equal(requestsSince(shared.emulator, mark).filter((r) => r.method === "PATCH").length, 0);
    assert.deepEqual(
      requestsAbout(shared.emulator, service)
        .filter((r) => r.method === "PATCH")
        .map((r) => r.command),
      ["start"],
      "one start over both ups",
    );
    await stack.destroy();
  });

  it("with a secret input and a refused key secret, the key secret reaches no state, output or error", async () => {
    const service = seedStopped("secretive");
    const resources = await capture(() => {
      new ServiceRunState("secretive", { serviceId: pulumi.secret(service), state: "running" });
    });
    assert.equal(resources[0].providerIsSecret, false, "a secret input does not make the provider secret");
    // A host configured once per provider text: the wrong secret only applies to a new shared.host.
    const other = await startProviderHost({
      cwd: ROOT,
      project: "engine-test",
      env: { DBCLOUD_TIME_SCALE: "0.02" },
    });
    try {
      const failing = new EngineStack(other, {
        config: { ...baseConfig(shared.emulator), "dbcloud:apiKeySecret": "wrong-secret-value-123" },
        secretKeys: SECRET_KEYS,
      });
      const result = await failing.up(resources);
      assert.equal(result.ok, false);
      assert.match(result.steps[0].error!, /401/);
      const everything = [
        result.steps[0].error!,
        failing.serializedState(),
        ...other.stdout,
        ...other.stderr,
      ].join("\n");
      assert.ok(!everything.includes("wrong-secret-value-123"), "the secret is not echoed");
      assert.ok(
        !everything.includes(
          Buffer.from(`${shared.emulator.keyId}:wrong-secret-value-123`).toString("base64"),
        ),
      );
    } finally {
      await other.stop();
    }
  });
});
