import assert from "node:assert/strict";
import { ConfigurationError } from "../../src/api/errors";
import { providerContext } from "../../src/provider/context";
import { configureProvider, providerConfig } from "../helpers/providerConfig";

/*
 * What each provider call runs with: the settings as they are at that call, from stack config or
 * the environment, checked whenever they change; while they stay the same, the same client (and
 * so the same connections). Nothing here sends a request.
 */

const API = { url: "http://127.0.0.1:9", keyId: "context-key", keySecret: "context-secret" };
const ENV = ["DBCLOUD_API_URL", "DBCLOUD_TIME_SCALE"] as const;

describe("the provider's context follows the settings", () => {
  const saved = ENV.map((name) => process.env[name]);
  afterEach(async () => {
    ENV.forEach((name, i) =>
      saved[i] === undefined ? delete process.env[name] : (process.env[name] = saved[i]),
    );
    await configureProvider({});
  });

  it("unchanged settings keep the client; a change in stack config or environment takes effect at the next call", async () => {
    await configureProvider(providerConfig(API, { rateLimit: "off" }));
    const first = providerContext();
    assert.equal(providerContext().client, first.client);
    await configureProvider(providerConfig({ ...API, url: "http://127.0.0.1:10" }, { rateLimit: "off" }));
    assert.equal(providerContext().client.apiUrl, "http://127.0.0.1:10");
    const { "dbcloud:apiUrl": _, ...withoutUrl } = providerConfig(API, { rateLimit: "off" });
    await configureProvider(withoutUrl);
    process.env.DBCLOUD_API_URL = "http://127.0.0.1:11";
    assert.equal(providerContext().client.apiUrl, "http://127.0.0.1:11");
    process.env.DBCLOUD_API_URL = "http://127.0.0.1:12";
    assert.equal(providerContext().client.apiUrl, "http://127.0.0.1:12");
    process.env.DBCLOUD_TIME_SCALE = "0.5";
    assert.equal(providerContext().tuning.pollEveryMs, 2_500);
  });

  it("an invalid setting fails every call until it is fixed", async () => {
    await configureProvider(providerConfig(API, { rateLimit: "off" }));
    const valid = providerContext();
    await configureProvider(providerConfig(API, { rateLimit: "lots" }));
    assert.throws(() => providerContext(), ConfigurationError);
    assert.throws(() => providerContext(), ConfigurationError);
    await configureProvider(providerConfig(API, { rateLimit: "off" }));
    process.env.DBCLOUD_TIME_SCALE = "7";
    assert.throws(() => providerContext(), ConfigurationError);
    assert.throws(() => providerContext(), ConfigurationError);
    delete process.env.DBCLOUD_TIME_SCALE;
    assert.equal(providerContext().client, valid.client);
  });
});
