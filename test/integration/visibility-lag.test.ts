import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import * as provider from "../../src/provider";
import type { EmulatorOptions } from "../../src/emulator";
import { startProviderFixture, type ProviderFixture } from "../helpers/providerFixture";

/*
 * The API is eventually consistent: for a while after a command, GET may still show the state
 * the command was sent from (the emulator's visibility lag). The outputs keep the last command
 * sent (`lastCommand`); within the grace period after it (30 s, here scaled to 0.6 s), a read
 * showing such a state proves nothing, on the next converge, on destroy and on refresh.
 */

type Props = Record<string, unknown>;
const LAG_MS = 400; // under the scaled grace period (30 s x 0.02 = 600 ms), as a real lag is under 30 s

describe("visibility lag after a command", function () {
  this.timeout(30_000);
  let fixture: ProviderFixture;
  const original = { log: console.log, error: console.error };

  async function start(options: EmulatorOptions & { timeScale?: number } = {}) {
    fixture = await startProviderFixture({
      transitions: { starting: 150, stopping: 150 },
      visibilityLagMs: LAG_MS,
      ...options,
    });
    console.log = () => undefined;
    console.error = () => undefined;
  }
  afterEach(async () => {
    console.log = original.log;
    console.error = original.error;
    await fixture?.close();
  });

  function seed(state: string): string {
    const id = randomUUID();
    fixture.emulator.addService({ organizationId: fixture.organizationId, id, name: "lagged", state });
    return id;
  }
  async function checked(news: Props): Promise<Props> {
    const { inputs, failures } = await provider.serviceRunStateCheck({}, news);
    assert.deepEqual(failures, []);
    return inputs;
  }
  const commands = (id: string) =>
    fixture.emulator.requests
      .filter((r) => r.serviceId === id && r.method === "PATCH" && r.status === 200)
      .map((r) => r.command);
  const lastSeq = () => fixture.emulator.requests.at(-1)?.seq ?? 0;
  /** The GETs of one service since `seq`: what they showed, and the true state then. */
  const getsSince = (id: string, seq: number) =>
    fixture.emulator.requests
      .filter((r) => r.serviceId === id && r.seq > seq && r.method === "GET")
      .map((r) => ({ shown: r.stateShown, truly: r.stateAfter }));

  it("after a waitForState:false start, a converge to stopped under visibility lag waits out the stale read and stops the service", async () => {
    await start();
    const id = seed("stopped");
    const created = await provider.serviceRunStateCreate(
      await checked({ serviceId: id, state: "running", waitForState: false }),
    );
    assert.equal(created.outs.observedState, "starting");
    assert.equal(created.outs.lastCommand.command, "start");
    const since = lastSeq();
    const updated = await provider.serviceRunStateUpdate(
      id,
      created.outs as unknown as Props,
      await checked({ serviceId: id, state: "stopped" }),
    );
    const gets = getsSince(id, since);
    assert.equal(
      gets[0].shown,
      "stopped",
      "the lag was there: the first GET showed the state before the start",
    );
    assert.notEqual(gets[0].truly, "stopped");
    assert.deepEqual(commands(id), ["start", "stop"]);
    assert.equal(updated.outs.observedState, "stopped");
    assert.equal(fixture.emulator.service(id)?.state, "stopped", "what the stack recorded is true");
    assert.equal(updated.outs.lastCommand.command, "stop");
  });

  it("after a waitForState:false stop, a converge to running under visibility lag waits out the stale read and starts the service", async () => {
    await start();
    const id = seed("running");
    const created = await provider.serviceRunStateCreate(
      await checked({ serviceId: id, state: "stopped", waitForState: false }),
    );
    assert.equal(created.outs.observedState, "stopping");
    const since = lastSeq();
    const updated = await provider.serviceRunStateUpdate(
      id,
      created.outs as unknown as Props,
      await checked({ serviceId: id, state: "running" }),
    );
    assert.equal(getsSince(id, since)[0].shown, "running", "the first GET showed the state before the stop");
    assert.deepEqual(commands(id), ["stop", "start"]);
    assert.equal(updated.outs.observedState, "running");
    assert.equal(fixture.emulator.service(id)?.state, "running");
  });

  it("a converge that timed out while GET lagged records its start, so the next converge to stopped is not fooled either", async () => {
    await start();
    const id = seed("stopped");
    const failure = (await provider
      .serviceRunStateCreate(await checked({ serviceId: id, state: "running", timeoutSeconds: 0.3 }))
      .then(
        () => assert.fail("expected a timeout: GET shows stopped for 400 ms"),
        (e: unknown) => e,
      )) as Error & { properties: Props };
    assert.match(failure.message, /Timed out/);
    assert.equal(failure.properties.observedState, "stopped", "the last GET, stale");
    assert.equal((failure.properties.lastCommand as Props).command, "start");
    const updated = await provider.serviceRunStateUpdate(
      id,
      failure.properties,
      await checked({ serviceId: id, state: "stopped" }),
    );
    assert.deepEqual(commands(id), ["start", "stop"]);
    assert.equal(updated.outs.observedState, "stopped");
    assert.equal(fixture.emulator.service(id)?.state, "stopped");
  });

  it('destroy with onDestroy "stop" right after a waitForState:false start waits out the stale read and stops the service', async () => {
    await start();
    const id = seed("stopped");
    const created = await provider.serviceRunStateCreate(
      await checked({ serviceId: id, state: "running", waitForState: false, onDestroy: "stop" }),
    );
    await provider.serviceRunStateDelete(id, created.outs as unknown as Props);
    assert.deepEqual(commands(id), ["start", "stop"]);
    assert.equal(fixture.emulator.service(id)?.state, "stopped");
  });

  describe("refresh", () => {
    // The emulator's clock stands still: GET shows the state before the command until it moves.
    let emulatorNow = 1_000_000;
    const frozen = { now: () => emulatorNow };

    it("right after a waitForState:false start, keeps the observed state while GET still shows the one before; past the grace period, records what GET shows", async () => {
      await start({ ...frozen, timeScale: 0.05 }); // grace period 1.5 s
      const id = seed("stopped");
      const created = await provider.serviceRunStateCreate(
        await checked({ serviceId: id, state: "running", waitForState: false }),
      );
      const outs = created.outs as unknown as Props;
      const read = await provider.serviceRunStateRead(id, outs);
      assert.equal(getsSince(id, 0).at(-1)?.shown, "stopped");
      assert.equal(read.props.observedState, "starting", "kept: the stale stopped is not drift");
      assert.deepEqual(read.props.lastCommand, outs.lastCommand, "the record stays");
      // Past the grace period the start counts as lost or undone: stopped is recorded as it is.
      await sleep(1_600);
      const later = await provider.serviceRunStateRead(id, read.props);
      assert.equal(later.props.observedState, "stopped");
      // When the service shows the start, that is recorded at once.
      emulatorNow += 10_000;
      const moved = await provider.serviceRunStateRead(id, read.props);
      assert.equal(moved.props.observedState, "running");
    });

    it("after a start it saw done (waitForState true), a stopped read is drift: recorded at once, within the grace period too", async () => {
      await start({ visibilityLagMs: 0, timeScale: 0.05 }); // grace period 1.5 s
      const id = seed("stopped");
      const created = await provider.serviceRunStateCreate(
        await checked({ serviceId: id, state: "running" }),
      );
      assert.equal(created.outs.observedState, "running");
      assert.equal(created.outs.lastCommand.seen, true, "a GET showed the start");
      fixture.emulator.setState(id, "stopped"); // someone stops it by hand
      // The grace period is in force for these reads: a start not seen, with a state that does not
      // satisfy it recorded, keeps that state against the same stopped read.
      const unseen = {
        ...created.outs,
        observedState: "starting",
        lastCommand: { ...created.outs.lastCommand, seen: false },
      };
      const control = await provider.serviceRunStateRead(id, unseen as unknown as Props);
      assert.equal(control.props.observedState, "starting", "the stopped read may still predate the start");
      const read = await provider.serviceRunStateRead(id, created.outs as unknown as Props);
      assert.equal(read.props.observedState, "stopped", "running satisfied the start: stopped is not stale");
    });
  });

  describe("state this version did not write", () => {
    it("state without lastCommand (written by an older version) converges as before, and gains the output", async () => {
      await start({ visibilityLagMs: 0 });
      const id = seed("stopped");
      const olds = {
        organizationId: fixture.organizationId,
        serviceId: id,
        state: "stopped",
        timeoutSeconds: 5,
        waitForState: true,
        observedState: "stopped",
        serviceName: "lagged",
        databaseVersion: "",
        endpoints: [],
      };
      const read = await provider.serviceRunStateRead(id, olds);
      assert.deepEqual(read.props.lastCommand, { command: "", sentAt: "", seen: false });
      assert.equal(read.props.observedState, "stopped");
      const before = Date.now();
      const updated = await provider.serviceRunStateUpdate(
        id,
        olds,
        await checked({ serviceId: id, state: "running", timeoutSeconds: 5 }),
      );
      assert.equal(updated.outs.observedState, "running");
      assert.deepEqual(commands(id), ["start"]);
      const sentAt = Date.parse(updated.outs.lastCommand.sentAt);
      assert.equal(updated.outs.lastCommand.command, "start");
      assert.ok(sentAt >= before && sentAt <= Date.now(), updated.outs.lastCommand.sentAt);
    });

    const unusable: [string, unknown][] = [
      ["a sentAt that is not a time", { command: "start", sentAt: "just now" }],
      ["a sentAt as a number", { command: "start", sentAt: Date.now() }],
      ["an unknown command", { command: "reboot", sentAt: "<now>" }],
      ["not an object", "start"],
    ];
    for (const [what, lastCommand] of unusable) {
      it(`lastCommand with ${what} reads as no record: stopped is taken at its word at once`, async () => {
        await start({ visibilityLagMs: 0 });
        const id = seed("stopped");
        const value =
          typeof lastCommand === "object" && (lastCommand as Props).sentAt === "<now>"
            ? { ...(lastCommand as Props), sentAt: new Date().toISOString() }
            : lastCommand;
        const olds = {
          organizationId: fixture.organizationId,
          serviceId: id,
          state: "running",
          observedState: "starting",
          lastCommand: value,
        };
        const updated = await provider.serviceRunStateUpdate(
          id,
          olds,
          await checked({ serviceId: id, state: "stopped" }),
        );
        assert.equal(getsSince(id, 0).length, 1, "one GET, no waiting");
        assert.deepEqual(commands(id), []);
        assert.equal(updated.outs.observedState, "stopped");
        assert.deepEqual(
          updated.outs.lastCommand,
          { command: "", sentAt: "", seen: false },
          "not carried on",
        );
      });
    }

    const recent: [string, () => string][] = [
      ["just written (the contrast)", () => new Date().toISOString()],
      [
        "from the future (another clock, or a wall clock stepped back since)",
        () => "2999-01-01T00:00:00.000Z",
      ],
    ];
    for (const [what, sentAtNow] of recent) {
      it(`a lastCommand ${what}: the same converge looks again until its grace period is over`, async () => {
        await start({ visibilityLagMs: 0 });
        const id = seed("stopped");
        const sentAt = sentAtNow();
        const olds = {
          organizationId: fixture.organizationId,
          serviceId: id,
          state: "running",
          observedState: "starting",
          lastCommand: { command: "start", sentAt },
        };
        // The grace period counts from the recorded time, or from now for a time in the future.
        const graceFrom = Math.min(Date.parse(sentAt), Date.now());
        const updated = await provider.serviceRunStateUpdate(
          id,
          olds,
          await checked({ serviceId: id, state: "stopped" }),
        );
        assert.ok(getsSince(id, 0).length > 2, "it looked again");
        // Wall time against the recorded time it reads (whole ms): 1 ms for the two clocks' rounding.
        assert.ok(Date.now() >= graceFrom + 599, "it looked until the grace period (0.6 s scaled) was over");
        assert.equal(updated.outs.observedState, "stopped");
        assert.deepEqual(updated.outs.lastCommand, { command: "start", sentAt, seen: false }, "carried on");
      });
    }
  });
});
