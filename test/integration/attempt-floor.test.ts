import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { ApiClient } from "../../src/api/client";
import { ApiTimeoutError } from "../../src/api/errors";
import type { ApiClientOptions } from "../../src/api/options";
import { RateBudget } from "../../src/api/rateBudget";
import { startEmulator, type Emulator } from "../../src/emulator";
import { failureOf } from "../helpers/apiClient";
import { virtualClock } from "../helpers/virtualClock";

/*
 * No attempt starts with less than its floor left before the deadline (a tenth of what the
 * call's first attempt had, at most 250 ms): the call ends as a spent deadline ends it, and neither
 * the server nor the rate budget counts a request for it. Against the emulator over HTTP, the client
 * on a virtual clock, so that the time left is exact.
 */

const ORG = randomUUID();
const SVC = randomUUID();
const PATH = `/v1/organizations/${ORG}/services/${SVC}`;

describe("the attempt floor: too little time left sends nothing", function () {
  this.timeout(20_000);
  let emulator: Emulator;
  beforeEach(async () => {
    emulator = await startEmulator({
      services: [{ organizationId: ORG, id: SVC, name: "floor", state: "running" }],
    });
  });
  afterEach(() => emulator.close());

  /** A client of the emulator on `clock`, whose first retry waits 95 % of a 1 s backoff ceiling. */
  const clientOf = (clock: ApiClientOptions["clock"], overrides: Partial<ApiClientOptions> = {}) =>
    new ApiClient({
      apiUrl: emulator.url,
      keyId: emulator.keyId,
      keySecret: emulator.keySecret,
      rateLimit: false,
      clock,
      random: () => 0.95,
      retry: { baseDelayMs: 1_000 },
      ...overrides,
    });

  // A call ended by the floor after an attempt ends as a spent deadline ends it, with that attempt's
  // error: a 429 or a 503 stays what the caller sees, not a timeout.
  it("after a 503, a retry that would start 50 ms before the deadline (floor 100 ms) is not sent", async () => {
    emulator.injectFault({ route: "getService", status: 503 });
    const { clock, now } = virtualClock();
    // The first attempt has 1000 ms: its floor is 100 ms. The retry's wait of 950 ms leaves 50.
    const error = await failureOf(clientOf(clock).getService(ORG, SVC, { deadline: now() + 1_000 }));
    assert.ok(!(error instanceof ApiTimeoutError), String(error));
    assert.equal(emulator.requests.length, 1, "the server saw the 503's attempt only");
    const { requestId } = emulator.requests[0];
    assert.equal(error.message, `503 Service Unavailable (GET ${PATH}, requestId ${requestId})`);
    assert.equal(now(), 950, "it ended when the retry would have started");
  });

  it("after a dropped connection, the call ends with that attempt's error", async () => {
    emulator.injectFault({ route: "getService", drop: "before" });
    const { clock, now } = virtualClock();
    const error = await failureOf(clientOf(clock).getService(ORG, SVC, { deadline: now() + 1_000 }));
    assert.equal(emulator.requests.length, 1);
    assert.equal(now(), 950, "it ended when the retry would have started");
    assert.match(error.message, new RegExp(`^Connection failed \\(GET ${PATH}\\): `));
  });

  it("a budget slot within the floor before the deadline is not taken, and nothing is sent", async () => {
    const { clock, now } = virtualClock();
    const budget = new RateBudget({ requests: 1, windowMs: 1_000 }, clock, 0);
    const client = clientOf(clock, { budget });
    await client.getService(ORG, SVC);
    assert.equal(budget.nextGrantAt(), 1_000, "the next slot is a window after the first request");
    // 1100 ms to the deadline: a floor of 110 ms, and the next slot would leave 100.
    const error = await failureOf(client.getService(ORG, SVC, { deadline: now() + 1_100 }));
    assert.ok(error instanceof ApiTimeoutError, String(error));
    assert.equal(
      error.message,
      `Timed out (GET ${PATH}): no attempt made, too little time left at the rate budget's next slot ` +
        `(100 ms before the deadline; an attempt needs 110 ms)`,
    );
    assert.equal(emulator.requests.length, 1, "only the first call reached the server");
    assert.equal(now(), 0, "it did not wait for the slot");
    assert.equal(budget.nextGrantAt(), 1_000, "the slot is still free for the next request");
  });
});
