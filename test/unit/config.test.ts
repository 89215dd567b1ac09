import assert from "node:assert/strict";
import { ConfigurationError } from "../../src/api/errors";
import { parseRateLimit } from "../../src/api/rateLimit";
import {
  configureFromStack,
  defaultOrganizationId,
  MIN_TIME_SCALE,
  readSetting,
  resolveConfig,
  stackSetting,
  timeScale,
} from "../../src/config";

/*
 * The configuration (src/config): what each missing or invalid setting says, and the settings
 * read from text (the rate limit, DBCLOUD_TIME_SCALE) at their edges.
 */

const ORG = "3f2a1c9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b";

describe("rate limit settings as written", () => {
  it("case, spaces and a missing amount are tolerated", () => {
    assert.deepEqual(parseRateLimit(" 10/10S "), { requests: 10, windowMs: 10_000 });
    assert.deepEqual(parseRateLimit("10 / 10 s"), { requests: 10, windowMs: 10_000 });
    assert.deepEqual(parseRateLimit("OFF"), false);
    assert.deepEqual(parseRateLimit("2/m"), { requests: 2, windowMs: 60_000 });
    assert.deepEqual(parseRateLimit("4/1.5s"), { requests: 4, windowMs: 1_500 });
    assert.deepEqual(parseRateLimit("4/1.25s"), { requests: 4, windowMs: 1_250 });
    assert.deepEqual(parseRateLimit("1/1s"), { requests: 1, windowMs: 1_000 });
    assert.deepEqual(parseRateLimit("100/500ms"), { requests: 100, windowMs: 500 });
  });

  it("zero requests or a zero window is refused, saying why", () => {
    assert.throws(() => parseRateLimit("0/10s"), /at least 1 request per a positive duration/);
    assert.throws(() => parseRateLimit("10/0s"), /at least 1 request per a positive duration/);
    assert.throws(
      () => parseRateLimit("10/10h"),
      /"10\/10h" is not a rate limit: write it as <requests>\/<duration>/,
    );
    for (const bad of ["x10/10s", "10/10sx", "10", "10/", "ten/1s"])
      assert.throws(() => parseRateLimit(bad), /not a rate limit/);
  });
});

describe("DBCLOUD_TIME_SCALE", () => {
  const previous = process.env.DBCLOUD_TIME_SCALE;
  afterEach(() => {
    if (previous === undefined) delete process.env.DBCLOUD_TIME_SCALE;
    else process.env.DBCLOUD_TIME_SCALE = previous;
  });
  const scaleOf = (raw: string | undefined) => {
    if (raw === undefined) delete process.env.DBCLOUD_TIME_SCALE;
    else process.env.DBCLOUD_TIME_SCALE = raw;
    return timeScale();
  };

  it("unset or empty is 1; any number in [MIN_TIME_SCALE, 1] is taken as is", () => {
    assert.equal(scaleOf(undefined), 1);
    assert.equal(scaleOf(""), 1);
    assert.equal(scaleOf("0.5"), 0.5);
    assert.equal(scaleOf("1"), 1);
    assert.equal(scaleOf(String(MIN_TIME_SCALE)), MIN_TIME_SCALE);
    assert.equal(MIN_TIME_SCALE, 0.001);
  });

  for (const raw of ["0.0009", "0", "-1", "1.01", "abc", "Infinity", "NaN"]) {
    it(`${JSON.stringify(raw)} is refused, naming the range`, () => {
      assert.throws(
        () => scaleOf(raw),
        (error: unknown) =>
          error instanceof ConfigurationError &&
          error.message === `DBCLOUD_TIME_SCALE must be a number from 0.001 to 1, got ${JSON.stringify(raw)}`,
      );
    });
  }
});

describe("configuration messages", () => {
  const none = () => undefined;
  const stackConfig = (values: Record<string, string>) => (key: string) => values[key];
  const KEY = { DBCLOUD_API_KEY_ID: "k", DBCLOUD_API_KEY_SECRET: "s" };

  /** The problems the configuration in `env` (and no stack config) is refused with. */
  function problemsOf(env: Record<string, string>): string[] {
    try {
      resolveConfig(none, env);
    } catch (error) {
      if (error instanceof ConfigurationError) return error.problems;
      throw error;
    }
    return assert.fail("expected a ConfigurationError");
  }

  it("each missing setting says how to set it; only the secret with --secret", () => {
    assert.deepEqual(problemsOf({}), [
      "Missing API URL: set stack config dbcloud:apiUrl or environment variable DBCLOUD_API_URL " +
        "(pulumi config set dbcloud:apiUrl https://api.example.com)",
      "Missing API key ID: set stack config dbcloud:apiKeyId or environment variable DBCLOUD_API_KEY_ID " +
        "(pulumi config set dbcloud:apiKeyId <key id>)",
      "Missing API key secret: set stack config dbcloud:apiKeySecret or environment variable " +
        "DBCLOUD_API_KEY_SECRET (pulumi config set --secret dbcloud:apiKeySecret <key secret>)",
    ]);
  });

  it("an invalid URL, organization or rate limit names where it came from", () => {
    const env = {
      ...KEY,
      DBCLOUD_API_URL: "ftp://x",
      DBCLOUD_ORGANIZATION_ID: "acme",
      DBCLOUD_RATE_LIMIT: "off",
    };
    assert.deepEqual(problemsOf(env), [
      "Invalid API URL from stack config dbcloud:apiUrl or environment variable DBCLOUD_API_URL: " +
        "the scheme must be https (got ftp)",
      "Invalid organization id from stack config dbcloud:organizationId or environment variable " +
        'DBCLOUD_ORGANIZATION_ID: "acme" is not a uuid',
    ]);
    const resolved = resolveConfig(none, {
      ...env,
      DBCLOUD_API_URL: "https://x.example.com/",
      DBCLOUD_ORGANIZATION_ID: ORG,
    });
    assert.deepEqual(resolved, {
      apiUrl: "https://x.example.com",
      keyId: "k",
      keySecret: "s",
      organizationId: ORG,
      rateLimit: false,
    });
    assert.throws(
      () => resolveConfig(none, { ...env, DBCLOUD_ORGANIZATION_ID: ORG, DBCLOUD_RATE_LIMIT: "x" }),
      {
        message:
          'Invalid configuration:\n- Invalid API URL from stack config dbcloud:apiUrl or environment variable DBCLOUD_API_URL: the scheme must be https (got ftp)\n- Invalid rate limit from stack config dbcloud:rateLimit or environment variable DBCLOUD_RATE_LIMIT: "x" is not a rate limit: write it as <requests>/<duration>, e.g. "10/10s", "5/1m" or "off"',
      },
    );
  });

  it("reads the rate limit store's Redis URL, and names its problems without its password", () => {
    const env = { ...KEY, DBCLOUD_API_URL: "https://x.example.com" };
    const stored = resolveConfig(none, {
      ...env,
      DBCLOUD_RATE_LIMIT_STORE: "rediss://u:pa%40ss-9Qw@cache.internal:6380/2",
    });
    assert.deepEqual(stored.rateLimitStore, {
      url: "rediss://u:pa%40ss-9Qw@cache.internal:6380/2",
      shown: "rediss://cache.internal:6380/2",
      password: "pa@ss-9Qw",
    });
    assert.deepEqual(
      problemsOf({ ...env, DBCLOUD_RATE_LIMIT_STORE: "http://u:pass-9Qw@cache.internal/x?y" }),
      [
        "Invalid rate limit store from stack config dbcloud:rateLimitStore or environment variable " +
          'DBCLOUD_RATE_LIMIT_STORE: the scheme must be redis: or rediss:, got "http:"; the path may only name a ' +
          "database number (/0 to /99); no query or fragment is read: leave them out",
      ],
    );
  });

  it("an invalid URL lists each of its problems", () => {
    assert.deepEqual(problemsOf({ ...KEY, DBCLOUD_API_URL: "http://user:pw@api.example.com/v1" }), [
      "Invalid API URL from stack config dbcloud:apiUrl or environment variable DBCLOUD_API_URL: " +
        "http:// is only allowed for a loopback host (localhost, 127.0.0.1, ::1); use https://api.example.com; " +
        "the URL must not contain credentials; set the API key instead; " +
        "give the base URL without the trailing /v1 (the client adds it)",
    ]);
  });

  it("prefers stack config over the environment; empty strings count as unset", () => {
    const resolved = resolveConfig(
      stackConfig({ "dbcloud:apiUrl": "https://config.example.com", "dbcloud:apiKeyId": "" }),
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

  it("an empty environment value counts as unset", () => {
    assert.equal(readSetting("apiKeyId", none, { DBCLOUD_API_KEY_ID: "" }), undefined);
    assert.equal(
      readSetting("apiKeyId", () => "", { DBCLOUD_API_KEY_ID: "e" }),
      "e",
    );
  });
});

describe("configure: the stack config a provider host receives", () => {
  const config = (values: Record<string, string>) => ({ config: { get: (key: string) => values[key] } });
  const saved = process.env.DBCLOUD_ORGANIZATION_ID;
  beforeEach(() => delete process.env.DBCLOUD_ORGANIZATION_ID);
  afterEach(() => {
    if (saved === undefined) delete process.env.DBCLOUD_ORGANIZATION_ID;
    else process.env.DBCLOUD_ORGANIZATION_ID = saved;
    configureFromStack(config({}));
  });

  it("replaces the config kept before: a key removed from the stack's config is unset", () => {
    configureFromStack(config({ "dbcloud:organizationId": ORG, "dbcloud:rateLimit": "5/1s" }));
    assert.equal(defaultOrganizationId(), ORG);
    assert.equal(stackSetting("dbcloud:rateLimit"), "5/1s");
    configureFromStack(config({ "dbcloud:rateLimit": "off" }));
    assert.equal(stackSetting("dbcloud:organizationId"), undefined);
    assert.equal(defaultOrganizationId(), undefined, "not the organization of the config before");
    assert.equal(stackSetting("dbcloud:rateLimit"), "off");
  });

  it("a key removed from the stack's config falls back to its environment variable", () => {
    configureFromStack(config({ "dbcloud:organizationId": ORG }));
    process.env.DBCLOUD_ORGANIZATION_ID = "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b";
    configureFromStack(config({}));
    assert.equal(defaultOrganizationId(), "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b");
  });
});
