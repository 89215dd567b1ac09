import type { Emulator } from "../../src/emulator";

/** The Authorization header the emulator accepts. */
export function emulatorAuthorization(emulator: Emulator): string {
  return `Basic ${Buffer.from(`${emulator.keyId}:${emulator.keySecret}`).toString("base64")}`;
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
