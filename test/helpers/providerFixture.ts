import { randomUUID } from "node:crypto";
import { startEmulator, type Emulator, type EmulatorOptions, type SeedService } from "../../src/emulator";
import { configureProvider, providerConfig } from "./providerConfig";

/**
 * An emulator plus the provider configured to talk to it, as `configure` would after the
 * engine handed over the stack config. Waits are scaled with DBCLOUD_TIME_SCALE so a
 * transition of a few hundred ms is polled like a real one of minutes.
 */
export interface ProviderFixture {
  emulator: Emulator;
  organizationId: string;
  /** Adds a service with a fresh random id to the fixture's organization; returns the id. */
  seedService(fields?: Omit<SeedService, "organizationId" | "id">): string;
  close(): Promise<void>;
}

export async function startProviderFixture(
  options: EmulatorOptions & { timeScale?: number; clientRateLimit?: string } = {},
): Promise<ProviderFixture> {
  const organizationId = randomUUID();
  const emulator = await startEmulator(options);
  const previousScale = process.env.DBCLOUD_TIME_SCALE;
  process.env.DBCLOUD_TIME_SCALE = String(options.timeScale ?? 0.02);
  await configureProvider(
    providerConfig(emulator, { organizationId, rateLimit: options.clientRateLimit ?? "off" }),
  );
  return {
    emulator,
    organizationId,
    seedService(fields = {}) {
      const id = randomUUID();
      emulator.addService({ ...fields, organizationId, id });
      return id;
    },
    async close() {
      if (previousScale === undefined) delete process.env.DBCLOUD_TIME_SCALE;
      else process.env.DBCLOUD_TIME_SCALE = previousScale;
      await emulator.close();
    },
  };
}
