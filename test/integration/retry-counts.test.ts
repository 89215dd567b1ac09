import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { ServerError } from "../../src/api/errors";
import { apiClientFor } from "../../src/config";
import { failureOf, serviceBody, TEST_KEY, testClient } from "../helpers/apiClient";
import { startHostileServer, type HostileServer } from "../helpers/hostileServer";

/*
 * A 429 is "wait your turn": it uses up none of the attempts other failures have, and grows no
 * backoff of theirs. Over HTTP, with the lines a retry logs.
 */

const ORG = randomUUID();
const SVC = randomUUID();

describe("429s and other retryable failures on separate counts", function () {
  this.timeout(20_000);
  let server: HostileServer | undefined;
  afterEach(async () => server?.close());

  /** Answers each request with the next status of `statuses`, then 200. */
  const answering = (statuses: number[]) =>
    startHostileServer((_req, res, { count }) => {
      const status = statuses[count - 1] ?? 200;
      res.writeHead(status, {
        "content-type": "application/json",
        ...(status === 429 ? { "retry-after": "0" } : {}),
      });
      res.end(status === 200 ? serviceBody(SVC, "r-ok") : JSON.stringify({ status, error: "not now" }));
    });

  it("after seven 429s a 503 is still retried, and the log counts each kind on its own", async () => {
    server = await answering([429, 429, 429, 429, 429, 429, 429, 503, 503]);
    const lines: string[] = [];
    const client = testClient(server, {
      retry: { baseDelayMs: 5, maxDelayMs: 20 },
      log: (line) => lines.push(line),
    });
    const { requestId } = await client.getService(ORG, SVC);
    assert.equal(requestId, "r-ok");
    assert.equal(server.requests.length, 10);
    const counts = lines.map((line) => /\(([^)]*)\)$/.exec(line)?.[1]);
    assert.deepEqual(counts, [
      ...[1, 2, 3, 4, 5, 6, 7].map((n) => `${n} rate limited`),
      "attempt 2 of 8",
      "attempt 3 of 8",
    ]);
  });

  it("429s between them do not bring the attempt cap closer: eight 503s are still the limit", async () => {
    server = await answering([503, 429, 503, 429, 429, 503, 503, 429, 503, 503, 503, 503, 503]);
    const lines: string[] = [];
    const client = testClient(server, {
      retry: { baseDelayMs: 5, maxDelayMs: 20, maxAttempts: 8 },
      log: (line) => lines.push(line),
    });
    const error = await failureOf(client.getService(ORG, SVC));
    assert.ok(error instanceof ServerError, String(error));
    assert.equal(server.requests.length, 12, "eight 503s and the four 429s among them");
    assert.ok(
      lines.every((line) => !/attempt (9|1\d) of 8/.test(line)),
      lines.join("\n"),
    );
  });
});

describe("retry waits under DBCLOUD_TIME_SCALE", function () {
  this.timeout(20_000);
  const previous = { scale: process.env.DBCLOUD_TIME_SCALE, random: Math.random };
  let server: HostileServer | undefined;
  afterEach(async () => {
    if (previous.scale === undefined) delete process.env.DBCLOUD_TIME_SCALE;
    else process.env.DBCLOUD_TIME_SCALE = previous.scale;
    Math.random = previous.random;
    await server?.close();
  });

  it("the provider's client scales its backoff and its ceiling: 0.01 makes 1 s to 30 s into 10 ms to 300 ms", async () => {
    server = await startHostileServer((_req, res) => {
      res.writeHead(503, { "content-type": "application/json" });
      res.end(JSON.stringify({ status: 503, error: "not now" }));
    });
    process.env.DBCLOUD_TIME_SCALE = "0.01";
    Math.random = () => 0.999; // each backoff at its ceiling
    const settings: Record<string, string> = {
      "dbcloud:apiUrl": server.url,
      "dbcloud:apiKeyId": TEST_KEY.keyId,
      "dbcloud:apiKeySecret": TEST_KEY.keySecret,
      "dbcloud:rateLimit": "off",
    };
    const lines: string[] = [];
    const client = apiClientFor(
      (key) => settings[key],
      (line) => lines.push(line),
    );
    assert.ok((await failureOf(client.getService(ORG, SVC))) instanceof ServerError);
    const waits = lines.map((line) => Number(/retrying in ([\d.]+)s/.exec(line)?.[1]));
    // 10, 20, 40, 80, 160 ms, then the 300 ms ceiling (the log shows tenths of a second).
    assert.deepEqual(waits, [0, 0, 0, 0.1, 0.2, 0.3, 0.3]);
  });
});
