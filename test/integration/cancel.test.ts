import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { ApiClient } from "../../src/api/client";
import { systemClock } from "../../src/api/clock";
import { ApiCancelledError } from "../../src/api/errors";
import { RateBudget } from "../../src/api/rateBudget";
import { providerContext } from "../../src/provider/context";
import { converge, ConvergeError, DEFAULT_TUNING } from "../../src/provider/converge";
import { startEmulator, type Emulator, type RequestLogEntry } from "../../src/emulator";
import type { ServerResponse } from "node:http";
import { failureOf, serviceBody, TEST_KEY } from "../helpers/apiClient";
import { startHostileServer } from "../helpers/hostileServer";
import { configureProvider, providerConfig } from "../helpers/providerConfig";

/*
 * One signal ends every wait of a call, against the emulator over HTTP: a request the server holds
 * open, a retry's sleep, a wait for the rate budget (whose slot is given back), a converge's poll
 * interval. A cancelled PATCH that reached the server is marked possibly applied, and a cancelled
 * converge says whether a command may have been: what the providers record. Nothing here sets a
 * deadline short enough to end these waits: only the signal can, before the test's timeout.
 */

const keyOf = (key: typeof TEST_KEY) => ({ keyId: key.keyId, keySecret: key.keySecret });
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
const HOUR = 3_600_000;

describe("cancellation: one signal ends every wait", function () {
  this.timeout(20_000);
  let emulator: Emulator;
  const organizationId = randomUUID();

  before(async () => {
    emulator = await startEmulator({ transitions: { starting: 600_000 } });
  });
  afterEach(() => emulator.clearFaults());
  after(async () => emulator?.close());

  const client = (overrides: Partial<ConstructorParameters<typeof ApiClient>[0]> = {}) =>
    new ApiClient({
      apiUrl: emulator.url,
      keyId: emulator.keyId,
      keySecret: emulator.keySecret,
      rateLimit: false,
      ...overrides,
    });
  const stopped = () => emulator.addService({ organizationId, state: "stopped" }).id;
  const requestsOf = (serviceId: string) => emulator.requests.filter((r) => r.serviceId === serviceId);
  async function logged(serviceId: string, matches: (entry: RequestLogEntry) => boolean) {
    while (!requestsOf(serviceId).some(matches)) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  it("a PATCH the server applied and holds open: aborted, ApiCancelledError, possibly applied; a held GET is not", async () => {
    const serviceId = stopped();
    emulator.injectFault({ route: "changeState", stall: "after" });
    const controller = new AbortController();
    const patching = failureOf(
      client().changeServiceState(organizationId, serviceId, "start", { signal: controller.signal }),
    );
    await logged(serviceId, (r) => r.status === "stalled");
    controller.abort(new Error("Cancelled: stop now"));
    const error = await patching;
    assert.ok(error instanceof ApiCancelledError, String(error));
    assert.match(error.message, /^Cancelled \(PATCH \/v1\/organizations\/.*\/state\): stop now/);
    assert.equal(error.possiblyApplied, true);
    assert.equal((error.cause as Error).message, "Cancelled: stop now");

    emulator.injectFault({ route: "getService", stall: "before" });
    const reading = new AbortController();
    const getting = failureOf(client().getService(organizationId, serviceId, { signal: reading.signal }));
    await logged(serviceId, (r) => r.method === "GET" && r.status === "stalled");
    reading.abort();
    const read = await getting;
    assert.ok(read instanceof ApiCancelledError);
    assert.equal(read.possiblyApplied, false);
  });

  it("a retry's sleep of a minute: ended at once, nothing more sent", async () => {
    const serviceId = stopped();
    emulator.injectFault({ route: "getService", status: 503 });
    const controller = new AbortController();
    const retryLater = { baseDelayMs: 60_000, maxDelayMs: 60_000 };
    // The client logs its retry just before it sleeps: then, and only then, it is asleep.
    const lines: string[] = [];
    const api = client({ retry: retryLater, random: () => 0.99, log: (line) => lines.push(line) });
    const getting = failureOf(api.getService(organizationId, serviceId, { signal: controller.signal }));
    while (!lines.some((line) => /retrying in/.test(line)))
      await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    const error = await getting;
    assert.ok(error instanceof ApiCancelledError, String(error));
    assert.match(error.message, /the last answer before it: 503/);
    assert.deepEqual(
      requestsOf(serviceId).map((r) => r.status),
      [503],
    );
  });

  it("a wait for the rate budget, as a first read and as a poll: ended at once, unsent, the slot given back", async () => {
    const serviceId = stopped();
    const budget = new RateBudget({ requests: 1, windowMs: HOUR }, systemClock);
    const api = client({ budget });
    await api.getService(organizationId, serviceId);
    const nextSlot = budget.nextGrantAt();
    for (const poll of [undefined, { waitedMs: () => 0, unseenMs: () => 0 }]) {
      const controller = new AbortController();
      const waiting = failureOf(
        api.getService(organizationId, serviceId, { signal: controller.signal, poll }),
      );
      await new Promise((resolve) => setImmediate(resolve));
      controller.abort();
      const error = await waiting;
      assert.ok(error instanceof ApiCancelledError, String(error));
    }
    assert.equal(requestsOf(serviceId).length, 1, "only the first GET was sent");
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(budget.nextGrantAt(), nextSlot, "the cancelled reservation is given back");
  });

  it("a converge waiting between polls after its start: a ConvergeError of kind cancelled that says the start was accepted", async () => {
    const serviceId = stopped();
    const controller = new AbortController();
    // The converge logs "sent start" once it has the PATCH's answer: cancel after that, not
    // merely once the server has seen the PATCH (its answer may still be on the way).
    let startAnswered: () => void = () => undefined;
    const answered = new Promise<void>((resolve) => (startAnswered = resolve));
    const log = {
      info: (line: string) => void (/sent start/.test(line) && startAnswered()),
      warn: () => undefined,
    };
    const tuning = { ...DEFAULT_TUNING, pollEveryMs: HOUR, commandGraceMs: HOUR };
    const request = { organizationId, serviceId, desired: "running" as const, timeoutMs: 2 * HOUR };
    const converging = failureOf(
      converge(
        { ...request, waitForState: true },
        { client: client(), clock: systemClock, log, tuning, signal: controller.signal },
      ),
    );
    await answered;
    controller.abort(new Error("Cancelled: the engine asked"));
    const error = await converging;
    assert.ok(error instanceof ConvergeError, String(error));
    assert.equal(error.kind, "cancelled");
    assert.equal(error.commandAccepted, true);
    assert.equal(error.service?.state, "starting");
    assert.equal(error.lastCommand?.command, "start");
    assert.match(
      error.message,
      /^Cancelled after .* after sending start: it was starting when last seen \(the engine asked\)/,
    );
    assert.equal(requestsOf(serviceId).length, 2, "the GET and the PATCH, nothing after");
  });

  it("the process's cancellation: many waits listen to it at once without a leak warning", async () => {
    // A server that answers only once all twelve reads are in flight, each listening to the signal.
    const held: ServerResponse[] = [];
    const server = await startHostileServer((_req, res) => {
      held.push(res);
      if (held.length === 12) for (const waiting of held) waiting.end(serviceBody(randomUUID()));
    });
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    try {
      await configureProvider(providerConfig({ url: server.url, ...keyOf(TEST_KEY) }, { rateLimit: "off" }));
      // Not aborted here: it is the whole process's, which other tests share.
      const { client: api, signal } = providerContext();
      assert.ok(signal instanceof AbortSignal, "the process's cancellation reaches the client's calls");
      const reads = Array.from({ length: 12 }, () =>
        api.getService(organizationId, randomUUID(), { signal }),
      );
      await Promise.all(reads);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", onWarning);
      await server.close();
    }
    assert.deepEqual(warnings, []);
  });

  it("the placeholder of a value not known yet is never sent as an id", async () => {
    const api = client();
    const seen = emulator.requests.length;
    const calls = [
      api.getService(organizationId, UNKNOWN),
      api.getService(UNKNOWN, randomUUID()),
      api.changeServiceState(organizationId, UNKNOWN, "start"),
      api.deleteReversePrivateEndpoint(organizationId, randomUUID(), UNKNOWN),
    ];
    for (const call of calls) assert.match((await failureOf(call)).message, /is not known yet/);
    assert.equal(emulator.requests.length, seen);
  });
});
