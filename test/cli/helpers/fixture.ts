import { startEmulator, type Emulator } from "../../../src/emulator";
import { CliStack, type CliStackOptions } from "./cliStack";

/*
 * The emulator and the provider settings every real-engine test starts from: services seeded in
 * one organization, transitions short enough for a test, a rate limit high enough that the
 * budget never decides the story (the budget has suites of its own); and a stack configured
 * against it as a user configures one.
 */

export const ORG = "5f0c3a52-8d1e-4b7a-9c63-0e2f7d4a1b90";
export const ANALYTICS = "0b6f2f1e-3c4d-4e5f-8a9b-1c2d3e4f5a60";
export const STAGING = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b61";
export const ENDPOINT = "rpe-0001";

/** Provider waits scaled down (a 5 s poll becomes 250 ms); the engine hands this to the plugins. */
export const PROVIDER_ENV = { DBCLOUD_TIME_SCALE: "0.05" };

export async function startCliEmulator(transitionMs = 1500): Promise<Emulator> {
  return startEmulator({
    transitions: { starting: transitionMs, stopping: transitionMs },
    rateLimit: { requests: 200, windowMs: 1000 },
    services: [
      {
        organizationId: ORG,
        id: ANALYTICS,
        name: "analytics",
        state: "stopped",
        reversePrivateEndpointIds: [ENDPOINT],
      },
      { organizationId: ORG, id: STAGING, name: "staging", state: "stopped" },
    ],
  });
}

/** The provider's settings, stored as a user stores them: the key's secret with `--secret`. */
export async function configureProvider(stack: CliStack, emulator: Emulator): Promise<void> {
  await stack.configSet("dbcloud:apiUrl", emulator.url);
  await stack.configSet("dbcloud:apiKeyId", emulator.keyId);
  await stack.configSet("dbcloud:apiKeySecret", emulator.keySecret, ["--secret"]);
  await stack.configSet("dbcloud:organizationId", ORG);
  await stack.configSet("dbcloud:rateLimit", "200/1s");
}

/** The emulator's requests of `method` (to `serviceId` when given), in order. */
export function requestsOf(emulator: Emulator, method: string, serviceId?: string) {
  return emulator.requests.filter(
    (request) => request.method === method && (serviceId === undefined || request.serviceId === serviceId),
  );
}

/** A stack started as `options` say, with the provider's settings against `emulator` and `config`. */
export async function configuredStack(
  emulator: Emulator,
  options: CliStackOptions & { config?: [string, string][] },
): Promise<CliStack> {
  const stack = await CliStack.start({ ...options, env: { ...PROVIDER_ENV, ...options.env } });
  try {
    await configureProvider(stack, emulator);
    for (const [key, value] of options.config ?? []) await stack.configSet(key, value);
    return stack;
  } catch (error) {
    stack.close();
    throw error;
  }
}

export interface CliSuite {
  emulator: Emulator;
  stack: CliStack;
}

/**
 * In a `describe`: the emulator (transitions `transitionMs` long) and a configured stack, started
 * before its first test and removed after its last. The fields are set once `before` has run.
 */
export function cliSuite(
  options: CliStackOptions & { config?: [string, string][]; transitionMs?: number },
): CliSuite {
  const suite = {} as CliSuite;
  before(async () => {
    suite.emulator = await startCliEmulator(options.transitionMs);
    suite.stack = await configuredStack(suite.emulator, options);
  });
  after(async () => {
    suite.stack?.close();
    await suite.emulator?.close();
  });
  return suite;
}
