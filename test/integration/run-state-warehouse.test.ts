import assert from "node:assert/strict";
import * as provider from "../../src/provider";
import { warehouseSeed, type WarehouseSeed, type WarehouseRules } from "../../src/emulator";
import { captureConsole, type CapturedConsole } from "../helpers/captureConsole";
import { startProviderFixture, type ProviderFixture } from "../helpers/providerFixture";

/*
 * ServiceRunState on the services of a warehouse, against the emulator over real HTTP: a
 * primary's stop refused while a secondary runs, and a secondary's start refused while its
 * primary is stopped (when the emulator is asked to), are waited out at the poll cadence until
 * the deadline, and never use up the bound on commands. Waits are scaled (DBCLOUD_TIME_SCALE
 * 0.02: a poll every 100 ms); transitions last 150 ms.
 */

type Props = Record<string, unknown>;
const TRANSITION_MS = 150;

describe("ServiceRunState on a warehouse's services", function () {
  this.timeout(30_000);
  let fixture: ProviderFixture;
  let output: CapturedConsole;
  let warehouse: WarehouseSeed;

  async function start(
    secondaries = 2,
    options: { rate?: string; rules?: Partial<WarehouseRules>; name?: string } = {},
  ) {
    fixture = await startProviderFixture({
      transitions: { starting: TRANSITION_MS, stopping: TRANSITION_MS },
      ...(options.rate && { rateLimit: { requests: 10, windowMs: 1_000 }, clientRateLimit: options.rate }),
      ...(options.rules && { warehouseRules: options.rules }),
    });
    warehouse = warehouseSeed({ organizationId: fixture.organizationId, secondaries, name: options.name });
    for (const service of warehouse.services) fixture.emulator.addService(service);
    output = captureConsole();
  }
  afterEach(async () => {
    output?.restore();
    await fixture?.close();
  });

  async function create(serviceId: string, state: "running" | "stopped", timeoutSeconds = 20) {
    const { inputs, failures } = await provider.serviceRunStateCheck(
      {},
      {
        __provider: "provider-text",
        organizationId: fixture.organizationId,
        serviceId,
        state,
        timeoutSeconds,
      },
    );
    assert.deepEqual(failures, []);
    return (await provider.serviceRunStateCreate(inputs)).outs as unknown as Props;
  }
  const patches = (id: string) =>
    fixture.emulator.requests
      .filter((r) => r.serviceId === id && r.method === "PATCH")
      .map((r) => `${r.command} ${r.status}`);
  const stopOutOfBand = (id: string) =>
    fixture.emulator.setState(id, "stopping", { state: "stopped", afterMs: TRANSITION_MS });

  for (const rules of [undefined, { primaryStop: { status: 422, message: "busy" } }]) {
    const answer = rules ? "a 422 of other wording" : "the default 400";
    it(`a primary's stop refused with ${answer} waits for its secondaries, stopped out of band, then succeeds`, async () => {
      await start(2, { rules });
      const { primary, secondaries } = warehouse;
      const converging = create(primary.id, "stopped");
      // More refusals than the bound on commands (3) before the secondaries stop.
      while (patches(primary.id).length < 5) await new Promise((resolve) => setTimeout(resolve, 20));
      for (const secondary of secondaries) stopOutOfBand(secondary.id);

      const outs = await converging;
      assert.equal(outs.observedState, "stopped");
      const sent = patches(primary.id);
      assert.equal(sent[sent.length - 1], "stop 200");
      assert.ok(
        sent.slice(0, -1).every((line) => line === `stop ${rules ? 422 : 400}`),
        sent.join(", "),
      );
      assert.ok(
        output.stdout.some((line) =>
          line.includes(
            `primary of warehouse ${warehouse.dataWarehouseId}, whose secondary services must be stopped first`,
          ),
        ),
        output.stdout.join("\n"),
      );
    });
  }

  for (const [status, rules] of [
    [400, undefined],
    [409, { primaryStop: { status: 409, message: "Conflict with the service's current state" } }],
  ] as const) {
    it(`at the deadline, names the warehouse and what must happen first, and records what it saw (${status})`, async () => {
      await start(2, { rules });
      const error = (await create(warehouse.primary.id, "stopped", 1).then(
        () => assert.fail("the stop succeeded while the secondaries run"),
        (caught: unknown) => caught,
      )) as Error & { id?: string; properties?: Props };
      assert.match(error.message, new RegExp(`warehouse ${warehouse.dataWarehouseId}`));
      assert.match(error.message, /secondary services must be stopped first, in the same stack or by hand/);
      assert.match(error.message, new RegExp(`the stop was refused (once|\\d+ times), last: ${status} `));
      assert.match(error.message, /Nothing was changed: the resource is recorded/);
      assert.equal(error.id, warehouse.primary.id);
      assert.equal(error.properties?.observedState, "running");
      assert.equal(error.properties?.state, "stopped");
      assert.equal(fixture.emulator.service(warehouse.primary.id)?.state, "running");
      // No re-send so late that its answer could miss the deadline: each was answered, refused.
      const resends = fixture.emulator.requests.filter(
        (r) => r.serviceId === warehouse.primary.id && r.method === "PATCH",
      );
      assert.ok(resends.length > 0);
      for (const resend of resends) assert.equal(resend.status, status);
    });
  }

  it("the deadline's message names a service of any length cut", async () => {
    await start(1, { name: "n".repeat(100_000) });
    const error = (await create(warehouse.primary.id, "stopped", 1).then(
      () => assert.fail("the stop succeeded while the secondary runs"),
      (caught: unknown) => caught,
    )) as Error;
    assert.ok(error.message.length < 3_000, `the message is ${error.message.length} characters`);
    assert.ok(error.message.includes(`service "${"n".repeat(120)}… (99888 more characters)"`), error.message);
  });

  it("a secondary's start refused while its primary is stopped waits for the primary, then succeeds", async () => {
    await start(1, { rules: { secondaryStart: { status: 400, message: "primary is stopped" } } });
    const [secondary] = warehouse.secondaries;
    for (const service of warehouse.services) fixture.emulator.setState(service.id, "stopped");
    const converging = create(secondary.id, "running");
    while (patches(secondary.id).length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    fixture.emulator.setState(warehouse.primary.id, "starting", { state: "running", afterMs: TRANSITION_MS });

    assert.equal((await converging).observedState, "running");
    assert.deepEqual(patches(secondary.id).slice(-1), ["start 200"]);
    assert.ok(output.stdout.some((line) => /whose primary service must be started first/.test(line)));
  });

  it("a 4xx with a meaning of its own (403), or on a service the GET shows in no warehouse, fails at once", async () => {
    await start();
    fixture.emulator.injectFault({ route: "changeState", status: 403, times: 1 });
    await assert.rejects(create(warehouse.primary.id, "stopped"), /403/);
    const alone = fixture.seedService({ name: "alone", state: "running", fields: { dataWarehouseId: null } });
    fixture.emulator.injectFault({ route: "changeState", status: 400, times: 1 });
    await assert.rejects(create(alone, "stopped"), /400/);
    assert.deepEqual([...patches(warehouse.primary.id), ...patches(alone)], ["stop 403", "stop 400"]);
  });

  it("a warehouse of 5 stopped, then started, all at once at the client's rate converges without a 429", async () => {
    await start(4, {
      rate: "10/1s",
      rules: { secondaryStart: { status: 400, message: "primary is stopped" } },
    });
    const ids = warehouse.services.map((service) => service.id);
    for (const state of ["stopped", "running"] as const) {
      const outs = await Promise.all(ids.map((id) => create(id, state)));
      assert.deepEqual(
        outs.map((o) => o.observedState),
        ids.map(() => state),
      );
    }
    const refused = fixture.emulator.requests.filter((r) => r.warehouseRefusal !== undefined);
    assert.ok(refused.length > 0, "some commands came in an order the warehouse refuses");
    assert.deepEqual(
      fixture.emulator.requests.filter((r) => r.status === 429 || r.rateLimited),
      [],
    );
  });
});
