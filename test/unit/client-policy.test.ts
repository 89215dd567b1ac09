import assert from "node:assert/strict";
import { inspect } from "node:util";
import { resolveConfig } from "../../src/config";
import { ApiClient } from "../../src/api/client";
import { type Clock } from "../../src/api/clock";
import {
  ApiConnectionError,
  ApiError,
  ApiTimeoutError,
  AuthenticationError,
  BadRequestError,
  ConfigurationError,
  ConflictError,
  createApiError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ServerError,
  UnprocessableError,
} from "../../src/api/errors";
import { checkApiUrl, isEndpointId, isUuid } from "../../src/api/guards";
import { RateBudget } from "../../src/api/rateBudget";
import { parseRateLimit } from "../../src/api/rateLimit";
import { redactSecrets } from "../../src/api/redact";
import {
  DEFAULT_RETRY_POLICY,
  MIN_RETRY_DELAY_MS,
  retryDelayMs,
  serverRequestedDelayMs,
  shouldRetry,
  type AttemptOutcome,
} from "../../src/api/retry";
import { PACKAGE_VERSION } from "../../src/api/version";
import { virtualClock } from "../helpers/virtualClock";

/* Pure policies of the HTTP module, table by table. */

describe("retry decision", () => {
  const outcomes: [AttemptOutcome, boolean][] = [
    ...[400, 401, 403, 404, 409, 422, 424, 501].map((status): [AttemptOutcome, boolean] => [
      { kind: "status", status },
      false,
    ]),
    ...[408, 429, 500, 502, 503, 504].map((status): [AttemptOutcome, boolean] => [
      { kind: "status", status },
      true,
    ]),
    [{ kind: "connection" }, true],
    [{ kind: "timeout" }, true],
  ];
  const requests: [string, string, boolean][] = [
    ["GET", "/v1/organizations/o/services/s", true],
    ["DELETE", "/v1/organizations/o/services/s/pipesReversePrivateEndpoints/e", true],
    ["PATCH", "/v1/organizations/o/services/s/state", true],
    ["PATCH", "/v1/organizations/o/services/s", false],
    ["POST", "/v1/organizations/o/services", false],
  ];
  for (const [method, path, retryableRequest] of requests) {
    for (const [outcome, retryableOutcome] of outcomes) {
      const expected = retryableRequest && retryableOutcome;
      const name = outcome.kind === "status" ? String(outcome.status) : outcome.kind;
      it(`${method} ${path.split("/").pop()} after ${name}: ${expected ? "retry" : "no retry"}`, () => {
        const args = {
          method,
          path,
          outcome,
          attempt: 1,
          elapsedMs: 0,
          nextDelayMs: 100,
          policy: DEFAULT_RETRY_POLICY,
        };
        assert.equal(shouldRetry(args), expected);
      });
    }
  }

  it("stops at the attempt cap and when the next wait would pass the elapsed cap", () => {
    const base = {
      method: "GET",
      path: "/x",
      outcome: { kind: "status", status: 503 } as AttemptOutcome,
      policy: DEFAULT_RETRY_POLICY,
    };
    assert.equal(
      shouldRetry({ ...base, attempt: DEFAULT_RETRY_POLICY.maxAttempts - 1, elapsedMs: 0, nextDelayMs: 0 }),
      true,
    );
    assert.equal(
      shouldRetry({ ...base, attempt: DEFAULT_RETRY_POLICY.maxAttempts, elapsedMs: 0, nextDelayMs: 0 }),
      false,
    );
    assert.equal(
      shouldRetry({
        ...base,
        attempt: 1,
        elapsedMs: DEFAULT_RETRY_POLICY.maxElapsedMs - 10,
        nextDelayMs: 20,
      }),
      false,
    );
  });
});

describe("retry delay", () => {
  const policy = DEFAULT_RETRY_POLICY;
  it("is full jitter under an exponential ceiling capped at maxDelayMs", () => {
    for (let retry = 1; retry <= 10; retry++) {
      const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
      assert.equal(
        retryDelayMs({ retry, policy, random: () => 0 }),
        MIN_RETRY_DELAY_MS,
        "never below the floor",
      );
      assert.equal(retryDelayMs({ retry, policy, random: () => 0.999999 }), Math.round(0.999999 * ceiling));
    }
  });

  it("keeps a floor under every delay, however small the scaled policy", () => {
    const tiny = { ...policy, baseDelayMs: 0.001, maxDelayMs: 0.03 };
    for (const random of [() => 0, () => 0.5, () => 0.999]) {
      assert.equal(retryDelayMs({ retry: 3, policy: tiny, random }), MIN_RETRY_DELAY_MS);
      assert.equal(retryDelayMs({ retry: 3, policy: tiny, serverDelayMs: 0, random }), MIN_RETRY_DELAY_MS);
    }
  });

  it("caps a server-named wait at maxServerDelayMs, and a huge retry number does not overflow", () => {
    assert.equal(
      retryDelayMs({ retry: 1, policy, serverDelayMs: 10 ** 12, random: () => 0 }),
      policy.maxServerDelayMs,
    );
    assert.equal(
      retryDelayMs({ retry: 5000, policy, random: () => 0.999999 }),
      Math.round(0.999999 * policy.maxDelayMs),
    );
  });

  it("honours a server-named wait, plus at most half a second of jitter", () => {
    assert.equal(retryDelayMs({ retry: 1, policy, serverDelayMs: 7000, random: () => 0 }), 7000);
    assert.equal(retryDelayMs({ retry: 5, policy, serverDelayMs: 7000, random: () => 0.999999 }), 7500);
  });
});

describe("server-named waits", () => {
  const now = Date.parse("2026-11-22T12:00:00Z");
  const table: [Record<string, string>, number | undefined][] = [
    [{ "retry-after": "3" }, 3000],
    [{ "retry-after": "1.5" }, 1500],
    [{ "retry-after": "Sun, 22 Nov 2026 12:00:10 GMT" }, 10_000],
    [{ "retry-after": "Sun, 22 Nov 2026 11:59:00 GMT" }, 0],
    [{ "x-ratelimit-reset": "4" }, 4000],
    [{ "x-ratelimit-reset": String(now / 1000 + 6) }, 6000],
    [{ "retry-after": "2", "x-ratelimit-reset": "5" }, 5000],
    [{ "x-ratelimit-reset": String(now + 7000) }, 7000], // epoch milliseconds
    [{ "x-ratelimit-reset": String(now / 1000 - 30) }, 0], // a reset already past
    [{ "retry-after": "86400" }, 60_000], // a day: capped at maxServerDelayMs
    [{ "x-ratelimit-reset": String(now / 1000 + 10 ** 6) }, 60_000], // far-future epoch: capped
    [{ "retry-after": "99999999999999999999999" }, undefined], // not a sane number at all
    [{ "retry-after": "Sat, 01 Jan 2300 00:00:00 GMT" }, 60_000], // a date centuries away: capped
    [{ "retry-after": "soon", "x-ratelimit-reset": "-1" }, undefined],
    [{ "retry-after": "1e3" }, undefined],
    [{}, undefined],
  ];
  for (const [headers, expected] of table) {
    it(`${JSON.stringify(headers)} → ${expected}`, () =>
      assert.equal(serverRequestedDelayMs(headers, now), expected));
  }
});

describe("error factory", () => {
  const table: [number, typeof ApiError][] = [
    [400, BadRequestError],
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [409, ConflictError],
    [422, UnprocessableError],
    [424, UnprocessableError],
    [429, RateLimitError],
    [500, ServerError],
    [502, ServerError],
    [503, ServerError],
    [418, ApiError],
    [408, ApiError],
  ];
  for (const [status, ErrorClass] of table) {
    it(`${status} → ${ErrorClass.name}`, () => {
      const error = createApiError({
        status,
        serverMessage: "boom",
        requestId: "req-1",
        method: "GET",
        path: "/v1/x",
      });
      assert.equal(error.constructor, ErrorClass);
      assert.ok(error instanceof ApiError && error instanceof Error);
      assert.equal(error.name, ErrorClass.name);
      assert.equal(error.status, status);
      assert.equal(error.requestId, "req-1");
      assert.equal(error.serverMessage, "boom");
      assert.equal(error.message, `${status} boom (GET /v1/x, requestId req-1)`);
      assert.ok(error.stack?.includes(ErrorClass.name));
    });
  }

  it("connection and timeout errors are ApiErrors without a status", () => {
    for (const ErrorClass of [ApiConnectionError, ApiTimeoutError]) {
      const error = new ErrorClass({
        status: undefined,
        message: "m",
        method: "GET",
        path: "/p",
        cause: new Error("c"),
      });
      assert.ok(error instanceof ApiError);
      assert.equal(error.status, undefined);
      assert.equal((error.cause as Error).message, "c");
    }
  });
});

describe("redaction", () => {
  it("removes the secret, Basic tokens and Authorization values", () => {
    const token = Buffer.from("id:s3cr3t-value").toString("base64");
    const text = `failed with s3cr3t-value; authorization: Basic ${token}; "Authorization":"Basic ${token}"`;
    const out = redactSecrets(text, ["s3cr3t-value", token]);
    assert.ok(!out.includes("s3cr3t-value") && !out.includes(token), out);
  });

  it("a client shows no credential through JSON or inspect", () => {
    const client = new ApiClient({
      apiUrl: "https://api.example.com",
      keyId: "kid",
      keySecret: "s3cr3t-value",
      rateLimit: false,
    });
    const token = Buffer.from("kid:s3cr3t-value").toString("base64");
    for (const shown of [JSON.stringify(client), inspect(client, { depth: 5, showHidden: false })]) {
      assert.ok(!shown.includes("s3cr3t-value") && !shown.includes(token), shown);
    }
  });
});

describe("configuration", () => {
  const env = {};
  const config = (values: Record<string, string>) => (key: string) => values[key];

  it("lists every missing value, naming both the config key and the variable, and never echoes the secret", () => {
    assert.throws(
      () => resolveConfig(config({}), env),
      (error: ConfigurationError) => {
        assert.equal(error.problems.length, 3);
        for (const [key, variable] of [
          ["dbcloud:apiUrl", "DBCLOUD_API_URL"],
          ["dbcloud:apiKeyId", "DBCLOUD_API_KEY_ID"],
          ["dbcloud:apiKeySecret", "DBCLOUD_API_KEY_SECRET"],
        ]) {
          assert.ok(
            error.problems.some((p) => p.includes(key) && p.includes(variable)),
            `${key} / ${variable}`,
          );
        }
        return true;
      },
    );
  });

  it("prefers stack config over the environment; empty strings count as unset", () => {
    const resolved = resolveConfig(
      config({ "dbcloud:apiUrl": "https://config.example.com", "dbcloud:apiKeyId": "" }),
      {
        DBCLOUD_API_URL: "https://env.example.com",
        DBCLOUD_API_KEY_ID: "env-id",
        DBCLOUD_API_KEY_SECRET: "env-secret",
      },
    );
    assert.equal(resolved.apiUrl, "https://config.example.com");
    assert.equal(resolved.keyId, "env-id");
    assert.deepEqual(resolved.rateLimit, { requests: 10, windowMs: 10_000 });
  });

  it("rejects a bad URL, organization id and rate limit, all at once", () => {
    assert.throws(
      () =>
        resolveConfig(
          config({
            "dbcloud:apiUrl": "http://api.example.com/v1",
            "dbcloud:apiKeyId": "k",
            "dbcloud:apiKeySecret": "super-secret-1",
            "dbcloud:organizationId": "acme",
            "dbcloud:rateLimit": "fast",
          }),
          env,
        ),
      (error: ConfigurationError) => {
        assert.equal(error.problems.length, 3);
        assert.match(error.message, /loopback/);
        assert.match(error.message, /without the trailing \/v1/);
        assert.match(error.message, /"acme" is not a uuid/);
        assert.match(error.message, /"fast" is not a rate limit/);
        assert.ok(!error.message.includes("super-secret-1"));
        return true;
      },
    );
  });

  it("parses rate limits", () => {
    assert.deepEqual(parseRateLimit("10/10s"), { requests: 10, windowMs: 10_000 });
    assert.deepEqual(parseRateLimit("5/1m"), { requests: 5, windowMs: 60_000 });
    assert.deepEqual(parseRateLimit("100/500ms"), { requests: 100, windowMs: 500 });
    assert.deepEqual(parseRateLimit("3/s"), { requests: 3, windowMs: 1000 });
    assert.equal(parseRateLimit("off"), false);
    for (const bad of ["10", "10/", "0/1s", "ten/1s", "10/1h"])
      assert.throws(() => parseRateLimit(bad), /not a rate limit/);
  });
});

describe("guards", () => {
  it("uuids and endpoint ids", () => {
    assert.ok(isUuid("3f2a1c9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b"));
    assert.ok(!isUuid("3f2a1c9e8b7d4e6f9a0b1c2d3e4f5a6b") && !isUuid("") && !isUuid(42));
    assert.ok(isEndpointId("rpe-0a1b.c_d:e~f"));
    for (const bad of ["", "a/b", "a b", "x".repeat(129), "%2e%2e"]) assert.ok(!isEndpointId(bad), bad);
  });

  it("API URLs: https anywhere, http only on loopback, trailing slash stripped", () => {
    assert.deepEqual(checkApiUrl("https://api.example.com/"), { url: "https://api.example.com" });
    assert.deepEqual(checkApiUrl("https://api.example.com/base/"), { url: "https://api.example.com/base" });
    for (const ok of ["http://127.0.0.1:8787", "http://localhost:1", "http://[::1]:9", "http://127.1.2.3"]) {
      assert.ok("url" in checkApiUrl(ok), ok);
    }
    for (const bad of ["http://10.0.0.1", "ftp://x", "https://u:p@x.com", "https://x.com?a=1", "nonsense"]) {
      assert.ok("problems" in checkApiUrl(bad), bad);
    }
  });

  it("the client refuses bad ids before sending anything", async () => {
    const client = new ApiClient({
      apiUrl: "http://127.0.0.1:9",
      keyId: "k",
      keySecret: "secret",
      rateLimit: false,
    });
    await assert.rejects(
      client.getService("not-a-uuid", "3f2a1c9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b"),
      /organizationId must be a uuid/,
    );
    await assert.rejects(
      client.deleteReversePrivateEndpoint(
        "3f2a1c9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b",
        "3f2a1c9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b",
        "../x",
      ),
      /reversePrivateEndpointId must be/,
    );
    assert.equal(client.stats.attempts, 0);
  });
});

describe("rate budget (virtual clock)", () => {
  it("grants the first at once, then paces the rest one window / limit apart", async () => {
    const { clock } = virtualClock();
    const budget = new RateBudget({ requests: 10, windowMs: 10_000 }, clock, 100);
    assert.equal((await budget.take()).waitedMs, 0);
    for (let i = 0; i < 3; i++) assert.equal((await budget.take()).waitedMs, 1_000);
  });

  it("never grants more than N in any window over a burst of 50, in arrival order", async () => {
    let now = 0;
    const grants: number[] = [];
    const clock: Clock = { now: () => now, sleep: async () => undefined };
    const budget = new RateBudget({ requests: 10, windowMs: 10_000 }, clock, 0);
    for (let i = 0; i < 50; i++) {
      const waited = (await budget.take()).waitedMs;
      grants.push(now + waited);
      now += 7; // callers arrive a few ms apart
    }
    for (let i = 1; i < grants.length; i++) assert.ok(grants[i] >= grants[i - 1], "FIFO");
    for (let i = 10; i < grants.length; i++)
      assert.ok(grants[i] - grants[i - 10] >= 10_000, `window at ${i}`);
  });

  it("blockUntil pauses every grant", async () => {
    const { clock } = virtualClock();
    const budget = new RateBudget({ requests: 10, windowMs: 1000 }, clock, 0);
    budget.blockUntil(5_000);
    assert.equal((await budget.take()).waitedMs, 5_000);
  });
});

it("PACKAGE_VERSION matches package.json (it is sent in the User-Agent)", () => {
  assert.equal(PACKAGE_VERSION, require("../../package.json").version);
});
