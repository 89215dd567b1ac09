// The emulator's state machine over real HTTP: every command in every state, the lazy move to
// the settled state when the clock passes the transition time, and out-of-band state changes.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { startEmulator, type Emulator } from "../../src/emulator";
import { sendToEmulator } from "../helpers/emulatorHttp";

const TRANSITION_MS = 50;

interface StateReply {
  status: number;
  state?: string;
  error?: string;
}

async function send(emulator: Emulator, method: string, path: string, body?: unknown): Promise<StateReply> {
  const response = await sendToEmulator(emulator, method, path, body);
  const envelope = (await response.json()) as { result?: { state: string }; error?: string };
  return { status: response.status, state: envelope.result?.state, error: envelope.error };
}

interface Row {
  state: string;
  /** What each command answers: status and the state right after, then where the service settles. */
  start: [number, string, string];
  stop: [number, string, string];
}

const CONFLICT = (state: string) => `Conflict: service is ${state}; a transition is in progress`;
const BEYOND = (command: string, state: string) => `Cannot ${command} service in state ${state}`;

// [status, state right after the command, state once every transition time has passed]
const TABLE: Row[] = [
  { state: "running", start: [200, "running", "running"], stop: [200, "stopping", "stopped"] },
  { state: "idle", start: [200, "awaking", "running"], stop: [200, "stopping", "stopped"] },
  { state: "degraded", start: [200, "degraded", "degraded"], stop: [200, "stopping", "stopped"] },
  {
    state: "partially_running",
    start: [200, "partially_running", "partially_running"],
    stop: [200, "stopping", "stopped"],
  },
  { state: "stopped", start: [200, "starting", "running"], stop: [200, "stopped", "stopped"] },
  { state: "starting", start: [200, "starting", "running"], stop: [409, "starting", "running"] },
  { state: "awaking", start: [200, "awaking", "running"], stop: [409, "awaking", "running"] },
  { state: "provisioning", start: [200, "provisioning", "running"], stop: [409, "provisioning", "running"] },
  { state: "stopping", start: [409, "stopping", "stopped"], stop: [200, "stopping", "stopped"] },
  {
    state: "terminating",
    start: [400, "terminating", "terminated"],
    stop: [400, "terminating", "terminated"],
  },
  { state: "terminated", start: [400, "terminated", "terminated"], stop: [400, "terminated", "terminated"] },
  { state: "failed", start: [400, "failed", "failed"], stop: [400, "failed", "failed"] },
  {
    state: "softdeleting",
    start: [400, "softdeleting", "softdeleted"],
    stop: [400, "softdeleting", "softdeleted"],
  },
  {
    state: "softdeleted",
    start: [400, "softdeleted", "softdeleted"],
    stop: [400, "softdeleted", "softdeleted"],
  },
  { state: "upgrading", start: [409, "upgrading", "upgrading"], stop: [409, "upgrading", "upgrading"] },
];

describe("emulator state machine", () => {
  const organizationId = randomUUID();
  let clock = 0;
  let emulator: Emulator;

  before(async () => {
    emulator = await startEmulator({
      now: () => clock,
      transitions: {
        starting: TRANSITION_MS,
        stopping: TRANSITION_MS,
        awaking: TRANSITION_MS,
        provisioning: TRANSITION_MS,
        terminating: TRANSITION_MS,
        softdeleting: TRANSITION_MS,
      },
    });
  });
  after(() => emulator.close());

  const servicePath = (serviceId: string) => `/v1/organizations/${organizationId}/services/${serviceId}`;

  for (const row of TABLE) {
    for (const command of ["start", "stop"] as const) {
      const [status, stateAfter, settledState] = row[command];
      it(`${command} on ${row.state}: ${status}, then ${stateAfter}, settling at ${settledState}`, async () => {
        clock = 1_000_000;
        const serviceId = randomUUID();
        emulator.addService({ organizationId, id: serviceId, state: row.state });
        const reply = await send(emulator, "PATCH", `${servicePath(serviceId)}/state`, { command });
        assert.equal(reply.status, status);
        if (status === 200) assert.equal(reply.state, stateAfter);
        if (status === 409) assert.equal(reply.error, CONFLICT(row.state));
        if (status === 400) assert.equal(reply.error, BEYOND(command, row.state));
        assert.equal((await send(emulator, "GET", servicePath(serviceId))).state, stateAfter);

        // One millisecond before the transition time nothing has moved; at it, the service has settled.
        clock += TRANSITION_MS - 1;
        assert.equal((await send(emulator, "GET", servicePath(serviceId))).state, stateAfter);
        clock += 1;
        assert.equal((await send(emulator, "GET", servicePath(serviceId))).state, settledState);
        clock += 60_000;
        assert.equal((await send(emulator, "GET", servicePath(serviceId))).state, settledState);

        const log = emulator.requests.filter(
          (entry) => entry.serviceId === serviceId && entry.route === "changeState",
        );
        assert.equal(log.length, 1);
        assert.equal(log[0].command, command);
        assert.equal(log[0].stateBefore, row.state);
        assert.equal(log[0].stateAfter, stateAfter);
      });
    }
  }

  it("moves on lazily in real time with the default clock", async () => {
    // Long enough that the GET right after the PATCH lands before the end, even on a busy machine.
    const realTimeMs = 150;
    const realTime = await startEmulator({ transitions: { stopping: realTimeMs, starting: realTimeMs } });
    try {
      const serviceId = randomUUID();
      realTime.addService({ organizationId, id: serviceId });
      const path = servicePath(serviceId);
      assert.equal((await send(realTime, "PATCH", `${path}/state`, { command: "stop" })).state, "stopping");
      assert.equal((await send(realTime, "GET", path)).state, "stopping");
      await new Promise((resolve) => setTimeout(resolve, realTimeMs + 40));
      assert.equal((await send(realTime, "GET", path)).state, "stopped");
      assert.equal((await send(realTime, "PATCH", `${path}/state`, { command: "start" })).state, "starting");
      await new Promise((resolve) => setTimeout(resolve, realTimeMs + 40));
      assert.equal((await send(realTime, "GET", path)).state, "running");
    } finally {
      await realTime.close();
    }
  });

  it("repeated commands are idempotent and a command changes nothing until the service settles", async () => {
    clock = 2_000_000;
    const serviceId = randomUUID();
    emulator.addService({ organizationId, id: serviceId });
    const path = `${servicePath(serviceId)}/state`;
    assert.equal((await send(emulator, "PATCH", path, { command: "stop" })).state, "stopping");
    clock += 20;
    // Repeating stop does not restart the transition: it still ends 50 ms after the first.
    assert.equal((await send(emulator, "PATCH", path, { command: "stop" })).state, "stopping");
    assert.equal((await send(emulator, "PATCH", path, { command: "start" })).status, 409);
    clock += 30;
    assert.equal((await send(emulator, "GET", servicePath(serviceId))).state, "stopped");
    assert.equal((await send(emulator, "PATCH", path, { command: "stop" })).state, "stopped");
  });

  it("setState flips a service out of band, visible at once, and a known transitional state moves on", async () => {
    clock = 3_000_000;
    const serviceId = randomUUID();
    emulator.addService({ organizationId, id: serviceId });
    emulator.setState(serviceId, "stopped");
    assert.equal((await send(emulator, "GET", servicePath(serviceId))).state, "stopped");
    emulator.setState(serviceId, "provisioning");
    clock += TRANSITION_MS;
    assert.equal((await send(emulator, "GET", servicePath(serviceId))).state, "running");
  });

  it("setState with then moves on after afterMs, for any state, and chains into natural transitions", async () => {
    clock = 4_000_000;
    const serviceId = randomUUID();
    emulator.addService({ organizationId, id: serviceId });
    emulator.setState(serviceId, "provisioning", { state: "running", afterMs: 300 });
    clock += 299;
    assert.equal(emulator.service(serviceId)?.state, "provisioning");
    clock += 1;
    assert.equal(emulator.service(serviceId)?.state, "running");

    emulator.setState(serviceId, "upgrading", { state: "stopping", afterMs: 100 });
    clock += 100;
    assert.equal(emulator.service(serviceId)?.state, "stopping");
    clock += TRANSITION_MS;
    assert.equal(emulator.service(serviceId)?.state, "stopped");
  });

  it("an unknown state stays until changed, and commands on it conflict", async () => {
    clock = 5_000_000;
    const serviceId = randomUUID();
    emulator.addService({ organizationId, id: serviceId });
    emulator.setState(serviceId, "upgrading");
    clock += 3_600_000;
    assert.equal((await send(emulator, "GET", servicePath(serviceId))).state, "upgrading");
    const reply = await send(emulator, "PATCH", `${servicePath(serviceId)}/state`, { command: "stop" });
    assert.equal(reply.status, 409);
    assert.equal(reply.error, CONFLICT("upgrading"));
    assert.throws(() => emulator.setState(randomUUID(), "running"), /does not exist/);
    assert.throws(() => emulator.setState(serviceId, ""), /state must be a non-empty string/);
  });

  it("setTransitions applies to transitions that start afterwards", async () => {
    clock = 6_000_000;
    const serviceId = randomUUID();
    emulator.addService({ organizationId, id: serviceId });
    const path = `${servicePath(serviceId)}/state`;
    await send(emulator, "PATCH", path, { command: "stop" });
    emulator.setTransitions({ stopping: 1_000, starting: 1_000 });
    try {
      clock += TRANSITION_MS;
      assert.equal(emulator.service(serviceId)?.state, "stopped");
      await send(emulator, "PATCH", path, { command: "start" });
      clock += 999;
      assert.equal(emulator.service(serviceId)?.state, "starting");
      clock += 1;
      assert.equal(emulator.service(serviceId)?.state, "running");
    } finally {
      emulator.setTransitions({ stopping: TRANSITION_MS, starting: TRANSITION_MS });
    }
  });
});
