import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { Clock } from "../../src/api/clock";
import * as provider from "../../src/provider";
import { testClient } from "../helpers/apiClient";
import { captureConsole, type CapturedConsole } from "../helpers/captureConsole";
import { startHostileServer, type HostileServer } from "../helpers/hostileServer";
import { startProviderFixture, type ProviderFixture } from "../helpers/providerFixture";
import { monotonicNow, stepWallClock, type SteppedWallClock } from "../helpers/wallClock";

/*
 * Deadlines do not move when the wall clock does: a create whose wall clock is stepped back or
 * forward mid-way ends by its own deadline, with its requests bounded; a server's date is read
 * against the wall clock. The emulator keeps its own clock, as another machine would.
 */

type Props = Record<string, unknown>;
const TEN_MINUTES = 600_000;

describe("wall-clock steps during a converge", function () {
  this.timeout(30_000);
  let fixture: ProviderFixture;
  let output: CapturedConsole;
  let wall: SteppedWallClock | undefined;

  beforeEach(async () => {
    fixture = await startProviderFixture({ now: monotonicNow, transitions: { starting: 60_000 } });
    output = captureConsole();
  });
  afterEach(async () => {
    wall?.restore();
    output.restore();
    await fixture.close();
  });

  const create = (serviceId: string, timeoutSeconds: number) =>
    provider.serviceRunStateCreate({
      organizationId: fixture.organizationId,
      serviceId,
      state: "running",
      timeoutSeconds,
      waitForState: true,
      __provider: "serialized-provider-text",
    });

  /** The create's error, or a note that it was still running long past its deadline. */
  async function outcome(work: Promise<unknown>, boundMs: number): Promise<unknown> {
    let watchdog: NodeJS.Timeout | undefined;
    const stuck = new Promise((resolve) => {
      watchdog = setTimeout(() => resolve(new Error(`still running ${boundMs} ms in`)), boundMs);
    });
    try {
      return await Promise.race([
        work.then(
          () => undefined,
          (e: unknown) => e,
        ),
        stuck,
      ]);
    } finally {
      clearTimeout(watchdog);
    }
  }

  it("stepped back ten minutes during a create with timeoutSeconds 3: it times out by its deadline, requests bounded", async () => {
    const id = fixture.seedService({ name: "stepped", state: "stopped" });
    wall = stepWallClock(-TEN_MINUTES, 300);
    const error = (await outcome(create(id, 3), 8_000)) as Error & { properties?: Props };
    assert.ok(wall.stepped(), "the wall clock was stepped during the create");
    assert.match(String(error?.message), /^Timed out after (2\.\d|3)s waiting for service "stepped"/);
    assert.equal(error.properties?.observedState, "starting", "recorded: the start was accepted");
    // One PATCH, and a GET at most every 100 ms (5 s scaled by 0.02) over 3 s.
    const requests = fixture.emulator.requests.filter((r) => r.serviceId === id);
    assert.ok(requests.length <= 35, `${requests.length} requests`);
    assert.equal(requests.filter((r) => r.method === "PATCH").length, 1);
  });

  it("stepped forward ten minutes during a create: it does not time out early, and succeeds", async () => {
    fixture.emulator.setTransitions({ starting: 600 });
    const id = fixture.seedService({ name: "stepped", state: "stopped" });
    wall = stepWallClock(TEN_MINUTES, 100);
    const { outs } = await create(id, 3);
    assert.ok(wall.stepped());
    assert.equal(outs.observedState, "running");
  });

  it("a command stored while the wall clock ran ten minutes fast is read, once it is right again, as sent just now", async () => {
    fixture.emulator.setTransitions({ starting: 60_000 });
    const id = fixture.seedService({ name: "stepped", state: "stopped" });
    wall = stepWallClock(TEN_MINUTES);
    const { outs } = await provider.serviceRunStateCreate({
      organizationId: fixture.organizationId,
      serviceId: id,
      state: "running",
      waitForState: false,
      __provider: "serialized-provider-text",
    });
    wall.restore();
    assert.ok(Date.parse(outs.lastCommand.sentAt) > Date.now(), "stored from the future");
    // A GET that shows stopped right after the start is no proof that the start was lost.
    fixture.emulator.setState(id, "stopped");
    const read = await provider.serviceRunStateRead(id, outs as unknown as Props);
    assert.equal(read.props.observedState, "starting", "kept: the read may predate the start");
  });
});

describe("a server's date against a clock whose monotonic time is not the wall clock's", () => {
  let server: HostileServer | undefined;
  afterEach(async () => server?.close());

  it("a Retry-After HTTP date two seconds ahead of the wall clock is a wait of about two seconds", async () => {
    server = await startHostileServer((_req, res, { count }) => {
      if (count === 1) {
        const at = new Date(Date.now() + 2_000).toUTCString();
        res.writeHead(429, { "retry-after": at, "content-type": "application/json" });
        res.end(JSON.stringify({ status: 429, error: "slow down" }));
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ status: 200, result: { id: "s", state: "running" } }));
    });
    let now = 0;
    const sleeps: number[] = [];
    const clock: Clock = {
      now: () => now,
      wallNow: () => Date.now(),
      sleep: async (ms) => {
        sleeps.push(ms);
        now += ms;
      },
    };
    const client = testClient(server, { clock });
    await client.getService(randomUUID(), randomUUID(), { deadline: 30_000 });
    assert.equal(sleeps.length, 1);
    assert.ok(sleeps[0] >= 1_000 && sleeps[0] <= 2_600, `waited ${sleeps[0]} ms`);
  });
});
