/*
 * What goes into the converger and what comes out of it: the request, its dependencies, the
 * result and the error, apart from the loop itself (converge.ts, which re-exports them).
 */
import type { Clock } from "../api/clock";
import type { ApiClient, ServiceCommand } from "../api/client";
import type { Service } from "../api/schemas";
import type { SentCommand } from "./lastCommand";
import type { DesiredState } from "./stateTable";
import type { ConvergeTuning } from "./tuning";

export interface ProgressLog {
  info(line: string): void;
  warn(line: string): void;
}

export interface ConvergeRequest {
  organizationId: string;
  serviceId: string;
  desired: DesiredState;
  timeoutMs: number;
  waitForState: boolean;
  /**
   * The last command sent to this service before this converge (from its outputs): within the
   * grace period after it, a GET showing a state it was sent from may be stale (`lastCommand.ts`).
   */
  lastCommand?: SentCommand;
}

export interface ConvergeDeps {
  client: Pick<ApiClient, "getService" | "changeServiceState">;
  clock: Clock;
  log: ProgressLog;
  tuning: Readonly<ConvergeTuning>;
}

export interface ConvergeResult {
  service: Service;
  /** Commands the server accepted, in order. */
  commands: ServiceCommand[];
  /** PATCH requests sent on the wire that the server may have applied (at most `maxCommands`). */
  commandsSent: number;
  /** Requests sent (GETs and PATCHes, retries not counted). */
  calls: number;
  /**
   * The last command the server accepted or may have applied, and when: this converge's last, or
   * else the one in the request; `seen` once a GET showed it.
   */
  lastCommand?: SentCommand;
}

/**
 * Converging failed. `commandAccepted` tells the provider whether the world was changed (then
 * the resource must be recorded so the next `pulumi up` carries on).
 */
export class ConvergeError extends Error {
  readonly commandAccepted: boolean;
  readonly service: Service | undefined;
  readonly kind: "timeout" | "terminal" | "flapping" | "api";
  /** As in `ConvergeResult`: the last command the server accepted or may have applied. */
  readonly lastCommand: SentCommand | undefined;
  /** Set when it timed out waiting on this warehouse's other members: it saw the service, so it records it. */
  readonly warehouseId: string | undefined;
  constructor(init: {
    message: string;
    kind: ConvergeError["kind"];
    commandAccepted: boolean;
    service: Service | undefined;
    lastCommand?: SentCommand;
    warehouseId?: string;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "ConvergeError";
    this.kind = init.kind;
    this.commandAccepted = init.commandAccepted;
    this.service = init.service;
    this.lastCommand = init.lastCommand;
    this.warehouseId = init.warehouseId;
  }
}

/** `analytics (3f2a1c9e…)`, or the id alone when the name is unknown. */
export function describeService(service: Service | undefined, serviceId: string): string {
  const short = `${serviceId.slice(0, 8)}…`;
  return service?.name ? `service "${service.name}" (${short})` : `service ${short}`;
}

/** `45s`, or `0.5s` below ten seconds (short timeouts would otherwise read as 0s or 1s). */
export function seconds(ms: number): string {
  return ms < 10_000 ? `${Number((ms / 1000).toFixed(1))}s` : `${Math.round(ms / 1000)}s`;
}
