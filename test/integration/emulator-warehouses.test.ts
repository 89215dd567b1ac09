// The emulator's warehouses over real HTTP: how services are seeded into one, the refusal of a
// primary's stop while a secondary is not stopped (and, when asked for, of a secondary's start
// while its primary is down), and how those refusals are configured.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import {
  DEFAULT_WAREHOUSE_RULES,
  EmulatorInputError,
  startEmulator,
  warehouseSeed,
  type Emulator,
  type EmulatorOptions,
  type WarehouseSeed,
} from "../../src/emulator";
import { sendToEmulator } from "../helpers/emulatorHttp";

const TRANSITION_MS = 1_000;

interface Reply {
  status: number;
  body: { result?: Record<string, unknown>; error?: string; requestId?: string; [key: string]: unknown };
}

describe("emulator warehouses", () => {
  const organizationId: string = randomUUID();
  let emulator: Emulator;
  let warehouse: WarehouseSeed;
  let clock: number;

  async function start(options: EmulatorOptions = {}, secondaries = 2): Promise<void> {
    clock = 1_000_000;
    warehouse = warehouseSeed({ organizationId, secondaries });
    emulator = await startEmulator({
      now: () => clock,
      transitions: { starting: TRANSITION_MS, stopping: TRANSITION_MS },
      services: warehouse.services,
      ...options,
    });
  }
  afterEach(() => emulator?.close());

  const path = (id: string, org = organizationId) => `/v1/organizations/${org}/services/${id}`;
  async function api(method: string, id: string, body?: unknown, org?: string): Promise<Reply> {
    const response = await sendToEmulator(emulator, method, path(id, org), body);
    return { status: response.status, body: (await response.json()) as Reply["body"] };
  }
  const command = (id: string, name: "start" | "stop", org?: string) =>
    api("PATCH", `${id}/state`, { command: name }, org);
  const stateOf = (id: string) => emulator.service(id)?.state;
  async function control(method: string, route: string, body: unknown): Promise<Reply> {
    const response = await fetch(`${emulator.url}/_emulator/${route}`, {
      method,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Reply["body"] };
  }
  const lastLogEntry = () => emulator.requests[emulator.requests.length - 1];

  it("a GET shows each service's warehouse, role and read-only flag; seed properties win over fields", async () => {
    await start();
    const { primary, secondaries, dataWarehouseId } = warehouse;
    const readonly = warehouseSeed({ organizationId, dataWarehouseId, readonlySecondaries: true });
    const extra = emulator.addService({
      ...readonly.secondaries[0],
      fields: { dataWarehouseId: randomUUID(), isPrimary: true, isReadonly: false },
    });
    const shown = await Promise.all([primary.id, secondaries[1].id, extra.id].map((id) => api("GET", id)));
    const roles = shown.map(({ body }) => [
      body.result?.dataWarehouseId,
      body.result?.isPrimary,
      body.result?.isReadonly,
    ]);
    assert.deepEqual(roles, [
      [dataWarehouseId, true, false],
      [dataWarehouseId, false, false],
      [dataWarehouseId, false, true],
    ]);
    assert.deepEqual(
      warehouse.services.map((seed) => seed.name),
      ["warehouse-primary", "warehouse-secondary-1", "warehouse-secondary-2"],
    );
    assert.equal(new Set(warehouse.services.map((seed) => seed.id)).size, 3);
    assert.throws(
      () => warehouseSeed({ organizationId, secondaries: -1 }),
      /secondaries must be an integer >= 0/,
    );
  });

  it("refuses a primary's stop with 400 and a reason while a secondary is not stopped, applying nothing", async () => {
    await start();
    const { primary, secondaries } = warehouse;
    const refused = await command(primary.id, "stop");
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error, (DEFAULT_WAREHOUSE_RULES.primaryStop as { message: string }).message);
    assert.match(refused.body.error ?? "", /secondary services .*not stopped/);
    assert.equal(typeof refused.body.requestId, "string");
    assert.equal(stateOf(primary.id), "running");
    const entry = lastLogEntry();
    assert.equal(entry.warehouseRefusal, "primaryStop");
    assert.equal(entry.stateBefore, "running");
    assert.equal(entry.stateAfter, "running");

    // One secondary stopped, the other still stopping: still refused.
    assert.equal((await command(secondaries[0].id, "stop")).status, 200);
    clock += TRANSITION_MS;
    assert.equal((await command(secondaries[1].id, "stop")).status, 200);
    assert.deepEqual([stateOf(secondaries[0].id), stateOf(secondaries[1].id)], ["stopped", "stopping"]);
    assert.equal((await command(primary.id, "stop")).status, 400);

    clock += TRANSITION_MS;
    const accepted = await command(primary.id, "stop");
    assert.equal(accepted.status, 200);
    assert.equal(accepted.body.result?.state, "stopping");
    assert.equal(lastLogEntry().warehouseRefusal, undefined);
  });

  it("counts only secondaries of the same warehouse and organization that are still there", async () => {
    await start({}, 1);
    const { primary, secondaries, dataWarehouseId } = warehouse;
    // A secondary of another warehouse, a service of another organization with the same warehouse
    // id, and a primary of the same warehouse do not hold the primary up.
    emulator.addService(warehouseSeed({ organizationId }).secondaries[0]);
    const otherOrganization = randomUUID();
    emulator.addService({
      ...warehouseSeed({ organizationId: otherOrganization, dataWarehouseId }).secondaries[0],
    });
    emulator.addService({ organizationId, dataWarehouseId, isPrimary: true });
    emulator.setState(secondaries[0].id, "terminated");
    assert.equal((await command(primary.id, "stop")).status, 200);

    // A primary already stopped or stopping answers as before: the command changes nothing.
    emulator.setState(secondaries[0].id, "running");
    assert.equal((await command(primary.id, "stop")).status, 200);
    emulator.setState(primary.id, "starting");
    assert.equal((await command(primary.id, "stop")).status, 409);
    emulator.removeService(secondaries[0].id);
    clock += TRANSITION_MS;
    assert.equal((await command(primary.id, "stop")).status, 200);
  });

  it("lets a secondary start while its primary is stopped unless secondaryStart is set", async () => {
    await start({}, 1);
    const { primary, secondaries } = warehouse;
    emulator.setState(secondaries[0].id, "stopped");
    emulator.setState(primary.id, "stopped");
    assert.equal((await command(secondaries[0].id, "start")).status, 200);

    emulator.setState(secondaries[0].id, "stopped");
    emulator.setWarehouseRules({
      secondaryStart: { status: 412, message: "Start the primary service first" },
    });
    const refused = await command(secondaries[0].id, "start");
    assert.deepEqual([refused.status, refused.body.error], [412, "Start the primary service first"]);
    assert.equal(lastLogEntry().warehouseRefusal, "secondaryStart");
    assert.equal(stateOf(secondaries[0].id), "stopped");
    // A stopping primary is down too; a starting one is not.
    emulator.setState(primary.id, "stopping");
    assert.equal((await command(secondaries[0].id, "start")).status, 412);
    assert.equal((await command(primary.id, "start")).status, 409);
    clock += TRANSITION_MS;
    assert.equal((await command(primary.id, "start")).status, 200);
    assert.equal((await command(secondaries[0].id, "start")).status, 200);
  });

  it("takes the refusal's status and message from options, setWarehouseRules and the control surface; false turns it off", async () => {
    await start({ warehouseRules: { primaryStop: { status: 422, message: "Secondaries still up" } } });
    const { primary } = warehouse;
    const first = await command(primary.id, "stop");
    assert.deepEqual([first.status, first.body.error], [422, "Secondaries still up"]);

    const put = await control("PUT", "warehouse-rules", { primaryStop: { status: 409, message: "Busy" } });
    assert.equal(put.status, 200);
    assert.deepEqual(put.body.warehouseRules, {
      primaryStop: { status: 409, message: "Busy" },
      secondaryStart: false,
    });
    const second = await command(primary.id, "stop");
    assert.deepEqual([second.status, second.body.error], [409, "Busy"]);

    emulator.setWarehouseRules({ primaryStop: false });
    assert.equal((await command(primary.id, "stop")).status, 200);
    assert.equal(stateOf(primary.id), "stopping");
  });

  it("refuses bad rules and bad warehouse seeds, naming every problem", async () => {
    await start();
    const badRules = await control("PUT", "warehouse-rules", {
      primaryStop: { status: 503, message: "" },
      secondaryStart: true,
      colour: "red",
    });
    assert.equal(badRules.status, 400);
    assert.deepEqual(badRules.body.issues, [
      "warehouseRules.colour is not a known field",
      "warehouseRules.primaryStop.status must be an integer from 400 to 499, got 503",
      'warehouseRules.primaryStop.message must be a non-empty string, got ""',
      'warehouseRules.secondaryStart must be false or {"status": 4xx, "message": string}, got true',
    ]);
    assert.equal(
      (await command(warehouse.primary.id, "stop")).status,
      400,
      "a refused change applies nothing",
    );
    await assert.rejects(
      startEmulator({ warehouseRules: { secondaryStart: { status: 400 } as never } }),
      (error: EmulatorInputError) =>
        error.issues.join() ===
        "options.warehouseRules.secondaryStart.message must be a non-empty string, got undefined",
    );
    const badSeed = await control("POST", "services", {
      organizationId,
      dataWarehouseId: "wh-1",
      isPrimary: "yes",
      isReadonly: 0,
    });
    assert.equal(badSeed.status, 400);
    assert.deepEqual(badSeed.body.issues, [
      'service.dataWarehouseId must be a uuid, got "wh-1"',
      'service.isPrimary must be a boolean, got "yes"',
      "service.isReadonly must be a boolean, got 0",
    ]);
  });

  it("seeds warehouse services through the control surface and describes them", async () => {
    await start({}, 0);
    const { primary, dataWarehouseId } = warehouse;
    const id = randomUUID();
    const added = await control("POST", "services", {
      organizationId,
      id,
      dataWarehouseId,
      isPrimary: false,
    });
    assert.equal(added.status, 201);
    const service = added.body.service as Record<string, unknown>;
    assert.deepEqual(
      [service.dataWarehouseId, service.isPrimary, service.isReadonly],
      [dataWarehouseId, false, false],
    );
    assert.equal((await command(primary.id, "stop")).status, 400);
    await control("POST", `services/${id}/state`, { state: "stopped" });
    assert.equal((await command(primary.id, "stop")).status, 200);
  });
});
