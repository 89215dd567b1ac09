// Seeds of a warehouse (a primary and its secondaries) with their ids chosen up front, so that a
// test can seed them and then address each service by role.
import { randomUUID } from "node:crypto";
import type { SeedService } from "./types";

export type WarehouseServiceSeed = SeedService & { id: string; dataWarehouseId: string; isPrimary: boolean };

export interface WarehouseSeedOptions {
  organizationId: string;
  /** Default a random uuid. */
  dataWarehouseId?: string;
  /** How many secondaries; default 2. */
  secondaries?: number;
  /** First state of every service; default "running". */
  state?: string;
  /** Whether the secondaries are read-only; default false. */
  readonlySecondaries?: boolean;
  /** Names are `${name}-primary` and `${name}-secondary-1`, ...; default "warehouse". */
  name?: string;
}

export interface WarehouseSeed {
  dataWarehouseId: string;
  primary: WarehouseServiceSeed;
  secondaries: WarehouseServiceSeed[];
  /** The primary, then the secondaries: ready for `startEmulator({ services })` or `addService`. */
  services: WarehouseServiceSeed[];
}

/** Seeds of one warehouse; fresh objects each call, free to change before seeding. */
export function warehouseSeed(options: WarehouseSeedOptions): WarehouseSeed {
  const { organizationId, secondaries = 2, state = "running", name = "warehouse" } = options;
  if (!Number.isInteger(secondaries) || secondaries < 0) {
    throw new RangeError(`secondaries must be an integer >= 0, got ${String(secondaries)}`);
  }
  const dataWarehouseId = options.dataWarehouseId ?? randomUUID();
  const member = (isPrimary: boolean, suffix: string): WarehouseServiceSeed => ({
    organizationId,
    id: randomUUID(),
    name: `${name}-${suffix}`,
    state,
    dataWarehouseId,
    isPrimary,
    isReadonly: !isPrimary && options.readonlySecondaries === true,
  });
  const primary = member(true, "primary");
  const others = Array.from({ length: secondaries }, (_, index) => member(false, `secondary-${index + 1}`));
  return { dataWarehouseId, primary, secondaries: others, services: [primary, ...others] };
}
