import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import * as provider from "../../src/provider";
import { ConvergeError } from "../../src/provider/converge";
import { captureConsole, type CapturedConsole } from "../helpers/captureConsole";
import { startProviderFixture, type ProviderFixture } from "../helpers/providerFixture";

/*
 * ServiceRunState's onDestroy ("leave" | "stop") through the provider functions, against the
 * emulator over real HTTP, with the provider's waits scaled down.
 */

type Props = Record<string, unknown>;

describe("ServiceRunState onDestroy against the emulator", function () {
  this.timeout(30_000);
  let fixture: ProviderFixture;
  let output: CapturedConsole;

  beforeEach(async () => {
    fixture = await startProviderFixture({ transitions: { starting: 150, stopping: 300 } });
    output = captureConsole();
  });

  afterEach(async () => {
    output.restore();
    await fixture.close();
  });

  function seed(state: string): string {
    return fixture.seedService({ name: "preview", state });
  }

  async function checked(news: Props): Promise<Props> {
    const { inputs, failures } = await provider.serviceRunStateCheck({}, { __provider: "text", ...news });
    assert.deepEqual(failures, []);
    return inputs;
  }

  async function created(news: Props): Promise<Props> {
    const { outs } = await provider.serviceRunStateCreate(await checked(news));
    fixture.emulator.clearRequests();
    return outs as unknown as Props;
  }

  const calls = (id: string) =>
    fixture.emulator.requests
      .filter((r) => r.serviceId === id)
      .map((r) => (r.method === "PATCH" ? `PATCH ${r.command} ${r.status}` : `${r.method} ${r.status}`));

  describe("check", () => {
    it('defaults to "leave" and accepts "stop" and a delete timeout', async () => {
      assert.equal((await checked({ serviceId: randomUUID(), state: "running" })).onDestroy, "leave");
      const inputs = await checked({
        serviceId: randomUUID(),
        state: "running",
        onDestroy: "stop",
        deleteTimeoutSeconds: 300,
      });
      assert.equal(inputs.onDestroy, "stop");
      assert.equal(inputs.deleteTimeoutSeconds, 300);
    });

    it("rejects anything else, naming the property, before any request", async () => {
      for (const onDestroy of ["Stop", "delete", "", 1, true]) {
        const { failures } = await provider.serviceRunStateCheck(
          {},
          { serviceId: randomUUID(), state: "running", onDestroy },
        );
        assert.deepEqual(
          failures.map((f) => f.property),
          ["onDestroy"],
          String(onDestroy),
        );
        assert.match(failures[0].reason, /onDestroy must be "leave" or "stop"/);
      }
      const { failures } = await provider.serviceRunStateCheck(
        {},
        { serviceId: randomUUID(), state: "running", deleteTimeoutSeconds: 0 },
      );
      assert.deepEqual(
        failures.map((f) => f.property),
        ["deleteTimeoutSeconds"],
      );
      assert.equal(fixture.emulator.requests.length, 0);
    });
  });

  describe("diff and update", () => {
    it("changing onDestroy (or the delete timeout) is an update that makes no API call", async () => {
      const id = seed("running");
      const outs = await created({ serviceId: id, state: "running" });
      assert.equal(outs.onDestroy, "leave");
      assert.equal("deleteTimeoutSeconds" in outs, false, "absent, never undefined");
      for (const change of [{ onDestroy: "stop" }, { deleteTimeoutSeconds: 60 }]) {
        const news = await checked({ serviceId: id, state: "running", ...change });
        const diff = await provider.serviceRunStateDiff(id, outs, news);
        assert.equal(diff.changes, true, JSON.stringify(change));
        assert.deepEqual(diff.replaces, []);
        const { outs: updated } = await provider.serviceRunStateUpdate(id, outs, news);
        assert.equal(updated.onDestroy, change.onDestroy ?? "leave");
        assert.equal(updated.deleteTimeoutSeconds, change.deleteTimeoutSeconds);
      }
      assert.equal(fixture.emulator.requests.length, 0);
    });

    it('state written before onDestroy existed counts as "leave": no diff', async () => {
      const id = seed("running");
      const { onDestroy: _dropped, ...oldOuts } = await created({ serviceId: id, state: "running" });
      void _dropped;
      const news = await checked({ serviceId: id, state: "running" });
      assert.equal((await provider.serviceRunStateDiff(id, oldOuts, news)).changes, false);
      const stop = await checked({ serviceId: id, state: "running", onDestroy: "stop" });
      assert.equal((await provider.serviceRunStateDiff(id, oldOuts, stop)).changes, true);
    });
  });

  describe("delete", () => {
    it('"leave" makes no API call', async () => {
      const id = seed("running");
      await provider.serviceRunStateDelete(id, await created({ serviceId: id, state: "running" }));
      assert.deepEqual(calls(id), []);
      assert.equal(fixture.emulator.service(id)?.state, "running");
    });

    it('"leave" says, by the service\'s name, that it left the service as last seen; a warning only for a value it does not know', async () => {
      const id = seed("running");
      const outs = await created({ serviceId: id, state: "running" });
      const label = `service "preview" (${id.slice(0, 8)}…)`;
      const left = (how: string) =>
        `[dbcloud] ${label}: ServiceRunState removed from the stack; the service is left ${how} (no API call)`;
      for (const onDestroy of ["leave", undefined]) {
        await provider.serviceRunStateDelete(id, { ...outs, onDestroy });
      }
      await provider.serviceRunStateDelete(id, { ...outs, observedState: "" });
      await provider.serviceRunStateDelete(id, { ...outs, observedState: undefined });
      await provider.serviceRunStateDelete(id, { ...outs, observedState: ["running"] }); // hand-edited
      assert.deepEqual(output.stdout, [
        left("running"),
        left("running"),
        left("as it was"),
        left("as it was"),
        left("as it was"),
      ]);
      assert.deepEqual(output.stderr, []);
      await provider.serviceRunStateDelete(id, { ...outs, onDestroy: "Stop" });
      assert.deepEqual(output.stderr, [
        `[dbcloud] warning: ${label}: onDestroy "Stop" in the state is neither "leave" nor "stop"; nothing is stopped`,
      ]);
      assert.deepEqual(calls(id), []);
    });

    it('"stop" with state that names no organization stops the service in the configured one', async () => {
      const id = seed("running");
      const outs = await created({ serviceId: id, state: "running", onDestroy: "stop" });
      delete outs.organizationId;
      await provider.serviceRunStateDelete(id, outs);
      assert.equal(fixture.emulator.service(id)?.state, "stopped");
    });

    it('"stop" refuses hand-edited ids, naming itself, before any request', async () => {
      const id = seed("running");
      const outs = await created({ serviceId: id, state: "running", onDestroy: "stop" });
      await assert.rejects(provider.serviceRunStateDelete(id, { ...outs, serviceId: "../x" }), (e: Error) =>
        e.message.startsWith("ServiceRunState delete: refusing to act on invalid properties"),
      );
      assert.deepEqual(calls(id), []);
    });

    it('"stop" answered 400 about something else not found fails: only the service\'s absence means done', async () => {
      // In no warehouse: a primary's refused stop is waited out instead (run-state-warehouse.test.ts).
      const id = fixture.seedService({
        name: "preview",
        state: "running",
        fields: { dataWarehouseId: null },
      });
      const outs = await created({ serviceId: id, state: "running", onDestroy: "stop" });
      fixture.emulator.injectFault({
        route: "changeState",
        status: 400,
        message: "Endpoint not found",
        times: 1,
      });
      await assert.rejects(
        provider.serviceRunStateDelete(id, outs),
        /Endpoint not found.*the resource stays in the stack/s,
      );
      assert.equal(fixture.emulator.service(id)?.state, "running");
    });

    it('"stop" stops the service with one command and waits until it is stopped', async () => {
      const id = seed("stopped");
      const outs = await created({ serviceId: id, state: "running", onDestroy: "stop" });
      await provider.serviceRunStateDelete(id, outs);
      assert.equal(fixture.emulator.service(id)?.state, "stopped");
      const log = calls(id);
      assert.equal(log[0], "GET 200");
      assert.deepEqual(
        log.filter((c) => c.startsWith("PATCH")),
        ["PATCH stop 200"],
      );
      assert.equal(log.at(-1), "GET 200", "it waited for the stop to finish");
      assert.ok(
        output.stdout.some((l) => /"preview".*: stopped on destroy/.test(l)),
        output.stdout.join("\n"),
      );
    });

    it('"stop" on a service already stopped sends no command', async () => {
      const id = seed("stopped");
      await provider.serviceRunStateDelete(
        id,
        await created({ serviceId: id, state: "stopped", onDestroy: "stop" }),
      );
      assert.deepEqual(calls(id), ["GET 200"]);
      assert.ok(output.stdout.some((l) => /already stopped on destroy/.test(l)));
    });

    it('a value in state that is not exactly "stop" never stops the service', async () => {
      const id = seed("running");
      const outs = await created({ serviceId: id, state: "running" });
      for (const onDestroy of ["STOP", "stop ", ["stop"], { stop: true }, 1, null, undefined]) {
        await provider.serviceRunStateDelete(id, { ...outs, onDestroy });
      }
      assert.deepEqual(calls(id), []);
      assert.equal(fixture.emulator.service(id)?.state, "running");
      assert.ok(
        output.stderr.some((l) => /onDestroy "STOP" in the state is neither "leave" nor "stop"/.test(l)),
      );
    });

    it("the stop is bounded by deleteTimeoutSeconds, else timeoutSeconds; a timeout throws (the resource stays)", async () => {
      fixture.emulator.setTransitions({ stopping: 60_000 });
      const id = seed("running");
      const outs = await created({
        serviceId: id,
        state: "running",
        onDestroy: "stop",
        timeoutSeconds: 600,
        deleteTimeoutSeconds: 0.4,
      });
      await assert.rejects(provider.serviceRunStateDelete(id, outs), (error: Error) => {
        // The converger's own deadline ended it: deleteTimeoutSeconds, not timeoutSeconds (600 s).
        assert.match(
          error.message,
          /^Timed out after 0\.4s .* to be stopped after sending stop: it is stopping.*the resource stays in the stack; run `pulumi destroy` again/s,
        );
        assert.ok(error.cause instanceof ConvergeError, "the converger's error is the cause");
        assert.equal(error.cause.kind, "timeout");
        return true;
      });

      const withoutDeleteTimeout: Props = { ...outs, timeoutSeconds: 0.4 };
      delete withoutDeleteTimeout.deleteTimeoutSeconds;
      await assert.rejects(provider.serviceRunStateDelete(id, withoutDeleteTimeout), /Timed out/);
      const edited = { ...outs, deleteTimeoutSeconds: -3, timeoutSeconds: 0.4 };
      await assert.rejects(provider.serviceRunStateDelete(id, edited), /Timed out after 0\.\ds/);
    });

    it("a refused stop throws with the server's message; the next destroy finishes the job", async () => {
      const id = seed("running");
      const outs = await created({ serviceId: id, state: "running", onDestroy: "stop" });
      fixture.emulator.injectFault({ route: "changeState", status: 403, times: 1 });
      await assert.rejects(provider.serviceRunStateDelete(id, outs), /403.*the resource stays in the stack/s);
      assert.equal(fixture.emulator.service(id)?.state, "running");
      await provider.serviceRunStateDelete(id, outs);
      assert.equal(fixture.emulator.service(id)?.state, "stopped");
    });

    it("a service that no longer exists, or is terminated, has nothing to stop: done", async () => {
      const gone = seed("running");
      const goneOuts = await created({ serviceId: gone, state: "running", onDestroy: "stop" });
      fixture.emulator.removeService(gone);
      await provider.serviceRunStateDelete(gone, goneOuts);
      assert.ok(output.stdout.some((l) => /no longer exists; nothing to stop/.test(l)));

      const terminated = seed("running");
      const outs = await created({ serviceId: terminated, state: "running", onDestroy: "stop" });
      fixture.emulator.setState(terminated, "terminated");
      await provider.serviceRunStateDelete(terminated, outs);
      assert.deepEqual(calls(terminated), ["GET 200"]);
      assert.ok(output.stderr.some((l) => /is terminated: nothing to stop/.test(l)));
    });
  });
});
