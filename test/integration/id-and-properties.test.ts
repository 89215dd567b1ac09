import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import * as provider from "../../src/provider";
import { captureConsole, type CapturedConsole } from "../helpers/captureConsole";
import { startProviderFixture, type ProviderFixture } from "../helpers/providerFixture";

/*
 * State that says one thing and an id that says another (hand-edited, imported, written by
 * another version): every operation given an id refuses, naming both, before any request; nothing
 * is deleted, stopped or started. Against the emulator over HTTP, whose log shows what was sent.
 */

type Props = Record<string, unknown>;

describe("the resource id and its properties name the same things", function () {
  this.timeout(20_000);
  let fixture: ProviderFixture;
  let output: CapturedConsole;
  let a: string;
  let b: string;

  beforeEach(async () => {
    fixture = await startProviderFixture();
    a = fixture.seedService({ name: "a", state: "running", reversePrivateEndpointIds: ["rpe-1"] });
    b = fixture.seedService({ name: "b", state: "running", reversePrivateEndpointIds: ["rpe-2"] });
    fixture.emulator.clearRequests();
    output = captureConsole();
  });
  afterEach(async () => {
    output.restore();
    await fixture.close();
  });

  const sent = () => fixture.emulator.requests.map((r) => `${r.method} ${r.serviceId ?? ""}`);
  const bothUntouched = () => {
    assert.deepEqual(sent(), [], "no request at all");
    for (const [id, endpoint] of [
      [a, "rpe-1"],
      [b, "rpe-2"],
    ]) {
      assert.ok(fixture.emulator.hasEndpoint(id, endpoint), `${endpoint} still exists`);
      assert.equal(fixture.emulator.service(id)?.state, "running");
    }
  };

  describe("ReversePrivateEndpointDeletion", () => {
    const endpoint = (serviceId: string, reversePrivateEndpointId: string, over: Props = {}): Props => ({
      organizationId: fixture.organizationId,
      serviceId,
      reversePrivateEndpointId,
      timeoutSeconds: 300,
      ...over,
    });

    it("an id naming service A and rpe-1, properties naming B and rpe-2: destroy refuses naming both, deletes nothing", async () => {
      const id = `${fixture.organizationId}/${a}/rpe-1`;
      const error = await provider.reversePrivateEndpointDeletionDelete(id, endpoint(b, "rpe-2")).then(
        () => assert.fail("destroy must refuse"),
        (e: Error) => e,
      );
      assert.match(error.message, /^ReversePrivateEndpointDeletion delete refused: the resource id names/);
      assert.ok(error.message.includes(`service "${a}", endpoint "rpe-1"`), error.message);
      assert.ok(error.message.includes(`service "${b}", endpoint "rpe-2"`), error.message);
      bothUntouched();
    });

    it("an id naming another organization, or not in the form create writes: destroy, read and update refuse", async () => {
      const props = endpoint(a, "rpe-1");
      for (const id of [
        `${randomUUID()}/${a}/rpe-1`,
        `${a}/rpe-1`,
        "rpe-1",
        `${fixture.organizationId}/${a}/rpe-1/x`,
      ]) {
        await assert.rejects(provider.reversePrivateEndpointDeletionDelete(id, props), /delete refused/, id);
        await assert.rejects(provider.reversePrivateEndpointDeletionRead(id, props), /read refused/, id);
        await assert.rejects(
          provider.reversePrivateEndpointDeletionUpdate(id, props, props),
          /update refused/,
        );
      }
      const other = randomUUID();
      const org = fixture.organizationId;
      await assert.rejects(provider.reversePrivateEndpointDeletionDelete(`${other}/${a}/rpe-1`, props), {
        message:
          `ReversePrivateEndpointDeletion delete refused: the resource id names organization "${other}", ` +
          `service "${a}", endpoint "rpe-1", but its properties name organization "${org}", service "${a}", ` +
          `endpoint "rpe-1". The state was edited, imported or written by another version; nothing was sent. ` +
          `Make them agree (pulumi state edit), or drop the resource from the state ` +
          `(pulumi state delete <urn>) and import it again.`,
      });
      await assert.rejects(provider.reversePrivateEndpointDeletionRead("rpe-1", props), {
        message: new RegExp(
          `^ReversePrivateEndpointDeletion read refused: the resource id names id "rpe-1", but`,
        ),
      });
      bothUntouched();
    });

    it("the id create gives, with the same properties: destroy deletes that endpoint", async () => {
      const { id, outs } = await provider.reversePrivateEndpointDeletionCreate(endpoint(a, "rpe-1"));
      await provider.reversePrivateEndpointDeletionDelete(id, { ...outs });
      assert.equal(fixture.emulator.hasEndpoint(a, "rpe-1"), false);
      assert.ok(fixture.emulator.hasEndpoint(b, "rpe-2"));
    });
  });

  describe("ServiceRunState (its id is the service id)", () => {
    const runState = (serviceId: string, over: Props = {}): Props => ({
      organizationId: fixture.organizationId,
      serviceId,
      state: "running",
      timeoutSeconds: 60,
      waitForState: true,
      onDestroy: "stop",
      observedState: "running",
      ...over,
    });

    it('an id naming service A, properties naming B, onDestroy "stop": destroy refuses naming both, stops nothing', async () => {
      const error = await provider.serviceRunStateDelete(a, runState(b)).then(
        () => assert.fail("destroy must refuse"),
        (e: Error) => e,
      );
      assert.match(error.message, /ServiceRunState delete .* refused: the resource id names service "/);
      assert.ok(error.message.includes(`id names service "${a}"`), error.message);
      assert.ok(error.message.includes(`properties name service "${b}"`), error.message);
      bothUntouched();
    });

    it("update and read with such an id refuse too, before any request: nothing started or stopped", async () => {
      const stopB = runState(b, { state: "stopped" });
      await assert.rejects(provider.serviceRunStateUpdate(a, runState(b), stopB), {
        message: new RegExp(
          `^ServiceRunState update refused: the resource id names service "${a}", but its properties name service "${b}"\\. `,
        ),
      });
      await assert.rejects(provider.serviceRunStateRead(a, runState(b)), /read refused/);
      // An id that is not text (hand-edited state) is named as it is, not taken apart.
      await assert.rejects(provider.serviceRunStateRead(42 as unknown as string, runState(b)), {
        message:
          /^ServiceRunState read refused: the resource id names id 42, but its properties name service "/,
      });
      bothUntouched();
    });

    it('onDestroy "leave" acts on nothing: the resource is dropped from the stack, mismatch or not', async () => {
      await provider.serviceRunStateDelete(a, runState(b, { onDestroy: "leave" }));
      bothUntouched();
    });
  });
});
