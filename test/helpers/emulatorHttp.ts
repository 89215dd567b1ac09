import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { startEmulator, type Emulator } from "../../src/emulator";

/** What the emulator's request ids look like. */
export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A Basic Authorization header for a key pair. */
export function basicAuth(keyId: string, keySecret: string): string {
  return `Basic ${Buffer.from(`${keyId}:${keySecret}`).toString("base64")}`;
}

/** The Authorization header the emulator accepts. */
export function emulatorAuthorization(emulator: Emulator): string {
  return basicAuth(emulator.keyId, emulator.keySecret);
}

/** One authenticated API request to the emulator with node's fetch (no client of ours in between). */
export function sendToEmulator(
  emulator: Emulator,
  method: string,
  path: string,
  body?: unknown,
): Promise<Response> {
  return fetch(`${emulator.url}${path}`, {
    method,
    headers: { authorization: emulatorAuthorization(emulator), "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** An API answer, its body parsed (every API answer of the emulator is JSON). */
export interface EmulatorReply {
  status: number;
  headers: Headers;
  text: string;
  body: Record<string, unknown>;
}

/**
 * One API request to the emulator: authenticated with its key unless `authorization` names
 * another header (`null`: none); a string body goes as it is, anything else as JSON.
 */
export async function callEmulator(
  emulator: Emulator,
  method: string,
  path: string,
  options: { body?: unknown; authorization?: string | null } = {},
): Promise<EmulatorReply> {
  const headers: Record<string, string> = {};
  const authorization =
    options.authorization === undefined ? emulatorAuthorization(emulator) : options.authorization;
  if (authorization !== null) headers.authorization = authorization;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers,
    body: typeof options.body === "string" ? options.body : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
}

/** The API's error envelope: status, error and a request id, the id also in X-Request-Id. */
export function assertErrorEnvelope(reply: EmulatorReply, status: number, error: string): void {
  assert.equal(reply.status, status);
  assert.deepEqual(Object.keys(reply.body).sort(), ["error", "requestId", "status"]);
  assert.equal(reply.body.status, status);
  assert.equal(reply.body.error, error);
  assert.match(String(reply.body.requestId), UUID_V4);
  assert.equal(reply.headers.get("x-request-id"), reply.body.requestId);
}

/** The service every test of a file starts from, and the emulator holding it. */
export interface SeededEmulator {
  organizationId: string;
  serviceId: string;
  servicePath: string;
  emulator: Emulator;
}

/**
 * A fresh emulator for each test of the calling `describe`, holding one running service
 * "analytics" with endpoint rpe-1 and 50 ms transitions; closed after each test.
 */
export function seededEmulatorEachTest(): SeededEmulator {
  const organizationId = randomUUID();
  const serviceId = randomUUID();
  const seeded = {
    organizationId,
    serviceId,
    servicePath: `/v1/organizations/${organizationId}/services/${serviceId}`,
  } as SeededEmulator;
  beforeEach(async () => {
    seeded.emulator = await startEmulator({
      transitions: { starting: 50, stopping: 50, awaking: 50 },
      services: [{ organizationId, id: serviceId, name: "analytics", reversePrivateEndpointIds: ["rpe-1"] }],
    });
  });
  afterEach(() => seeded.emulator.close());
  return seeded;
}
