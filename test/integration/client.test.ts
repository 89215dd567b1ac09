import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { ApiClient } from "../../src/api/client";
import type { ApplyBudget } from "../../src/api/options";
import {
  ApiError,
  ApiTimeoutError,
  ConfigurationError,
  ConflictError,
  quoted,
  ServerError,
} from "../../src/api/errors";
import type { ApiClientOptions } from "../../src/api/options";
import { failureOf, quickRetryClient, serviceBody } from "../helpers/apiClient";
import { scriptedServer, type HostileServer } from "../helpers/hostileServer";
import { virtualClock } from "../helpers/virtualClock";

/*
 * The client's own bookkeeping around attempts, over real HTTP: what it refuses to build, what
 * it counts, the command bound, "possibly applied", and the deadline before a send.
 */

const ORG = randomUUID();
const SVC = randomUUID();
const SERVICE_PATH = `/v1/organizations/${ORG}/services/${SVC}`;
const SERVICE_BODY = serviceBody(SVC, "r-1");

const scripted = (statuses: number[]) => scriptedServer(statuses, SERVICE_BODY);

/** Retries here wait 10 to 20 ms. */
const clientFor = quickRetryClient;

describe("client bookkeeping", function () {
  this.timeout(20_000);
  let server: HostileServer | undefined;
  afterEach(async () => server?.close());

  it("refuses to be built without a URL, key id or secret, listing each", () => {
    assert.throws(
      () => new ApiClient({ apiUrl: "", keyId: "", keySecret: "" }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigurationError);
        assert.deepEqual(error.problems, [
          'apiUrl: "" is not an absolute URL (expected e.g. https://api.example.com)',
          "keyId: the API key ID is required",
          "keySecret: the API key secret is required",
        ]);
        return true;
      },
    );
    const client = new ApiClient({
      apiUrl: "https://x.example.com/",
      keyId: "k",
      keySecret: "s",
      rateLimit: false,
    });
    assert.deepEqual(client.toJSON(), { apiUrl: "https://x.example.com", keyId: "k" });
  });

  it("refuses a limit that would end every wait at once or never: zero, negative, NaN, Infinity, not a number", () => {
    const build =
      (timeouts: object, retry: object = {}) =>
      () =>
        new ApiClient({ apiUrl: "https://x.example.com", keyId: "k", keySecret: "s", timeouts, retry });
    for (const bad of [0, -1, Number.NaN, Infinity, "5000"]) {
      assert.throws(build({ totalMs: bad }), (error: unknown) => {
        assert.ok(error instanceof ConfigurationError);
        assert.deepEqual(error.problems, [
          `timeouts.totalMs: must be a positive, finite number, got ${quoted(bad)}`,
        ]);
        return true;
      });
    }
    assert.throws(build({ headersMs: 0 }, { maxAttempts: 0 }), {
      message: /timeouts\.headersMs: .* got 0\n- retry\.maxAttempts: .* got 0/,
    });
    assert.throws(build("abc" as unknown as object), {
      message: /timeouts: must be an object of limits, got "abc"/,
    });
    assert.doesNotThrow(build({ totalMs: 2 ** 32, headersMs: undefined }, { baseDelayMs: 1 }));
  });

  it("a URL missing altogether (a JavaScript caller) is quoted as empty; a URL's problems are listed on one line", () => {
    assert.throws(() => new ApiClient({ keyId: "k", keySecret: "s" } as ApiClientOptions), {
      name: "ConfigurationError",
      message: 'apiUrl: "" is not an absolute URL (expected e.g. https://api.example.com)',
    });
    assert.throws(
      () => new ApiClient({ apiUrl: "http://user:pw@example.com/v1?x=1", keyId: "k", keySecret: "s" }),
      {
        name: "ConfigurationError",
        message:
          "apiUrl: http:// is only allowed for a loopback host (localhost, 127.0.0.1, ::1); use https://example.com; " +
          "the URL must not contain credentials; set the API key instead; " +
          "the URL must not have a query or fragment; " +
          "give the base URL without the trailing /v1 (the client adds it)",
      },
    );
  });

  it("counts attempts, retries and answers by status", async () => {
    server = await scripted([503, 502, 200]);
    const client = clientFor(server);
    await client.getService(ORG, SVC);
    assert.equal(client.stats.attempts, 3);
    assert.equal(client.stats.retries, 2);
    assert.deepEqual(client.stats.outcomes, { "503": 1, "502": 1, "200": 1 });
    assert.equal(client.stats.budgetWaitMs, 0);
  });

  it("a command other than start or stop is refused before anything is sent", async () => {
    server = await scripted([200]);
    await assert.rejects(clientFor(server).changeServiceState(ORG, SVC, "restart" as "start"), {
      name: "InvalidInputError",
      message: 'command must be "start" or "stop", got "restart"',
    });
    assert.equal(server.requests.length, 0);
  });

  it("the command bound counts every PATCH sent except refusals, and sends none past it", async () => {
    server = await scripted([409, 429, 200]);
    const bound: ApplyBudget = { used: 0, max: 1 };
    const client = clientFor(server);
    await assert.rejects(client.changeServiceState(ORG, SVC, "start", { applyBudget: bound }), ConflictError);
    assert.equal(bound.used, 0, "a 409 applied nothing");
    await client.changeServiceState(ORG, SVC, "start", { applyBudget: bound });
    assert.equal(bound.used, 1, "the 429 was not counted, the 200 was");
    const error = await failureOf(client.changeServiceState(ORG, SVC, "start", { applyBudget: bound }));
    assert.equal(error.constructor, ApiError);
    assert.equal(
      error.message,
      `Not sent (PATCH ${SERVICE_PATH}/state): 1 commands already sent in this converge`,
    );
    assert.equal(server.requests.length, 3);
  });

  it("a bound spent by retries ends with the last answer, not a new request", async () => {
    server = await scripted([503]);
    const bound: ApplyBudget = { used: 0, max: 2 };
    const error = await failureOf(
      clientFor(server).changeServiceState(ORG, SVC, "stop", { applyBudget: bound }),
    );
    assert.ok(error instanceof ServerError, String(error));
    assert.equal(error.message, `503 answer 2 (PATCH ${SERVICE_PATH}/state)`);
    assert.equal(server.requests.length, 2);
    assert.equal(error.possiblyApplied, true);
  });

  it("possibly applied: a change after a 5xx, never a GET, never a change refused with a 4xx only", async () => {
    server = await scripted([503, 409]);
    const afterServerError = await failureOf(clientFor(server).changeServiceState(ORG, SVC, "start"));
    assert.ok(afterServerError instanceof ConflictError);
    assert.equal(afterServerError.possiblyApplied, true);
    await server.close();
    server = await scripted([400]);
    assert.equal(
      (await failureOf(clientFor(server).changeServiceState(ORG, SVC, "start"))).possiblyApplied,
      false,
    );
    await server.close();
    server = await scripted([503]);
    const get = await failureOf(clientFor(server, { retry: { maxAttempts: 2 } }).getService(ORG, SVC));
    assert.equal(get.possiblyApplied, false);
  });

  it("possibly applied from exactly 500 up; a 499 is a refusal", async () => {
    server = await scripted([500, 409]);
    const afterFiveHundred = await failureOf(clientFor(server).changeServiceState(ORG, SVC, "stop"));
    assert.ok(afterFiveHundred instanceof ConflictError, String(afterFiveHundred));
    assert.equal(server.requests.length, 2);
    assert.equal(afterFiveHundred.possiblyApplied, true);
    await server.close();
    server = await scripted([499]);
    const refused = await failureOf(clientFor(server).changeServiceState(ORG, SVC, "stop"));
    assert.equal(server.requests.length, 1);
    assert.equal(refused.possiblyApplied, false);
  });

  it("a deadline already passed fails before sending, saying so", async () => {
    server = await scripted([200]);
    const error = await failureOf(clientFor(server).getService(ORG, SVC, { deadline: Date.now() - 1 }));
    assert.ok(error instanceof ApiTimeoutError, String(error));
    assert.equal(
      error.message,
      `Timed out (GET ${SERVICE_PATH}): the deadline passed before the request was sent`,
    );
    assert.equal(server.requests.length, 0);
  });

  it("a deadline that is exactly now sends nothing", async () => {
    server = await scripted([200]);
    const { clock, now } = virtualClock();
    const error = await failureOf(clientFor(server, { clock }).getService(ORG, SVC, { deadline: now() }));
    assert.equal(
      error.message,
      `Timed out (GET ${SERVICE_PATH}): the deadline passed before the request was sent`,
    );
    assert.equal(server.requests.length, 0);
  });

  it("names the field of a bad id in every operation", async () => {
    server = await scripted([200]);
    const client = clientFor(server);
    await assert.rejects(client.getService(ORG, "bad"), /^InvalidInputError: serviceId must be a uuid/);
    await assert.rejects(
      client.changeServiceState("bad", SVC, "start"),
      /^InvalidInputError: organizationId must be a uuid/,
    );
    await assert.rejects(
      client.changeServiceState(ORG, "bad", "start"),
      /^InvalidInputError: serviceId must be a uuid/,
    );
    await assert.rejects(
      client.deleteReversePrivateEndpoint("bad", SVC, "e"),
      /^InvalidInputError: organizationId must be/,
    );
    await assert.rejects(
      client.deleteReversePrivateEndpoint(ORG, "bad", "e"),
      /^InvalidInputError: serviceId must be/,
    );
    assert.equal(server.requests.length, 0);
  });
});
