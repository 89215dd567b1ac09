import type { Clock } from "../api/clock";
import { DbcloudError, quoted } from "../api/errors";
import type { ApiClient } from "../api/client";
import type { ServiceCommand } from "../api/options";
import type { Service } from "../api/schemas";
import type { SentCommand } from "./lastCommand";
import type { DesiredState } from "./stateTable";
import type { WarehouseWait } from "./warehouse";

export type ProgressLog = Record<"info" | "warn", (line: string) => void>;

export const DEFAULT_TUNING = Object.freeze({
  /** After each answer, the next poll this much later. */
  pollEveryMs: 5_000,
  /** After a command, how long GET may keep showing the old state before the command is re-sent (once). */
  commandGraceMs: 30_000,
  progressEveryMs: 30_000,
  /** PATCHes one converge sends at most, counted on the wire (refusals that applied nothing aside). */
  maxCommands: 3,
});

export type ConvergeTuning = Record<keyof typeof DEFAULT_TUNING, number>;

/** No poll interval is shorter than this, whatever the scaling: no tight loop. */
export const MIN_POLL_MS = 10;

/** Every wait multiplied by `scale` (DBCLOUD_TIME_SCALE); the command bound stays. */
export function scaleTuning(tuning: Readonly<ConvergeTuning>, scale: number): ConvergeTuning {
  return {
    pollEveryMs: tuning.pollEveryMs * scale,
    commandGraceMs: tuning.commandGraceMs * scale,
    progressEveryMs: tuning.progressEveryMs * scale,
    maxCommands: tuning.maxCommands,
  };
}

export interface ConvergeRequest {
  organizationId: string;
  serviceId: string;
  desired: DesiredState;
  timeoutMs: number;
  waitForState: boolean;
  /** The last command sent before this converge (from the outputs). */
  lastCommand?: SentCommand;
}

export interface ConvergeDeps {
  client: Pick<ApiClient, "getService" | "changeServiceState">;
  clock: Clock;
  log: ProgressLog;
  tuning: Readonly<ConvergeTuning>;
  /** Ends every poll wait and request of the converge at once when it aborts. */
  signal?: AbortSignal;
}

/** What a PATCH came to, short of ending the converge. */
export type PatchResult =
  | { outcome: "accepted"; service: Service }
  | { outcome: "refused"; why: string | undefined }
  | { outcome: "lost"; why: string }
  | { outcome: "warehouse"; wait: WarehouseWait };

/** The last command that may have applied: accepted, or its answer lost. */
export interface InFlight {
  command: ServiceCommand;
  /** Unknown when only a refused re-send's earlier attempt may have applied. */
  from: string | undefined;
  /** When it was answered or lost, else the converge's start. */
  at: number;
  /** A poll has shown a state other than `from` since. */
  moved: boolean;
  /** What a failure says of lost answers. */
  lost?: string;
}

/** Converging failed or was cancelled; `commandAccepted`: the world changed, or may have, so the resource is recorded. */
export class ConvergeError extends DbcloudError {
  readonly commandAccepted!: boolean;
  /** The server answered a command of this converge with a 2xx: accepted, not only possibly applied. */
  readonly commandAnswered!: boolean;
  readonly service!: Service | undefined;
  readonly kind!: "timeout" | "terminal" | "flapping" | "api" | "cancelled";
  readonly lastCommand: SentCommand | undefined;
  /** Set when it timed out waiting on this warehouse's other members: the service was seen, so it is recorded. */
  readonly warehouseId: string | undefined;
  constructor(
    init: Pick<ConvergeError, "message" | "kind" | "commandAccepted" | "commandAnswered" | "service"> &
      Partial<Pick<ConvergeError, "lastCommand" | "warehouseId" | "cause">>,
  ) {
    const { message, cause, ...fields } = init;
    super(message, cause === undefined ? undefined : { cause });
    Object.assign(this, fields);
  }
}

/** `service "analytics" (3f2a1c9e…)`, or the id alone when the name is unknown. */
export function describeService(service: Service | undefined, serviceId: string): string {
  const short = `${serviceId.slice(0, 8)}…`;
  return service?.name ? `service ${quoted(service.name)} (${short})` : `service ${short}`;
}

/** `45s`, or `0.5s` below ten seconds (short timeouts would otherwise read as 0s or 1s). */
export function seconds(ms: number): string {
  return ms < 10_000 ? `${Number((ms / 1000).toFixed(1))}s` : `${Math.round(ms / 1000)}s`;
}
