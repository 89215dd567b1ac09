import assert from "node:assert/strict";
import { ApiClient } from "../../src/api/client";
import type { ApiClientOptions } from "../../src/api/options";

/*
 * Our API client against a test server (hostileServer.ts): the key it uses, how a test builds
 * it, what a service answer looks like, and the error a call must fail with.
 */

/** The key tests give the client and the provider unless they need another. */
export const TEST_KEY = { keyId: "key-id", keySecret: "key-secret-value" };

/**
 * A client of the server at `server.url` with the test key and no rate limit; `overrides`
 * replace any of it (a test file passes its own retry timings).
 */
export function testClient(server: { url: string }, overrides: Partial<ApiClientOptions> = {}): ApiClient {
  return new ApiClient({ apiUrl: server.url, ...TEST_KEY, rateLimit: false, ...overrides });
}

/** A test client whose retries wait 10 to 20 ms (for tests that count attempts, not waits). */
export function quickRetryClient(
  server: { url: string },
  overrides: Partial<ApiClientOptions> = {},
): ApiClient {
  return testClient(server, { retry: { baseDelayMs: 10, maxDelayMs: 20 }, ...overrides });
}

/** The API's answer to a GET of service `id`, running: the envelope, with `requestId` when given. */
export function serviceBody(id: string, requestId?: string): string {
  return JSON.stringify({
    status: 200,
    ...(requestId ? { requestId } : {}),
    result: { id, state: "running" },
  });
}

/** The error `work` must fail with (an assertion fails if it succeeds). */
export function failureOf(work: Promise<unknown>): Promise<Error & { possiblyApplied?: boolean }> {
  return work.then(
    () => assert.fail("expected a failure"),
    (error: Error) => error as Error & { possiblyApplied?: boolean },
  );
}
