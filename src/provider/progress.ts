import type { ServiceCommand } from "../api/options";
import { seconds, type ProgressLog } from "./convergeTypes";
import { warehouseBlocker, type WarehouseWait } from "./warehouse";

/* Every progress line the providers print: outside mutation testing, so error messages are not here. */

/** Progress goes to stdout, warnings to stderr: the Pulumi CLI shows both for dynamic providers. */
export const consoleLog: ProgressLog = {
  info: (line) => console.log(`[dbcloud] ${line}`),
  warn: (line) => console.error(`[dbcloud] warning: ${line}`),
};

export const converging = {
  mayPredate: (label: string, state: string, command: ServiceCommand) =>
    `${label} shows ${state}, which may predate the ${command} sent; looking again`,
  warning: (label: string, warning: string) => `${label}: ${warning}`,
  reached: (label: string, state: string, elapsedMs: number) =>
    `${label} is ${state} (${seconds(elapsedMs)})`,
  resending: (label: string, state: string, sinceMs: number, command: ServiceCommand) =>
    `${label} still ${state} ${seconds(sinceMs)} after ${command}; sending it again`,
  sent: (label: string, command: ServiceCommand, state: string, desired: string) =>
    `${label}: sent ${command} (was ${state}); target ${desired}`,
  answerLost: (label: string, command: ServiceCommand, why: string) =>
    `${label}: the answer to ${command} was lost (${why}); it may have been applied, looking`,
  refused: (label: string, command: ServiceCommand, why: string | undefined) =>
    `${label}: ${command} refused for now (${why ?? "conflict"}); waiting`,
  warehouse: (label: string, wait: WarehouseWait, tuning: { pollEveryMs: number }) =>
    `${label}: ${wait.command} refused for now: ${warehouseBlocker(wait)}; trying again every ${seconds(tuning.pollEveryMs)}`,
  waiting: (label: string, state: string, desired: string, elapsedMs: number) =>
    `${label}: ${state}, target ${desired}, ${seconds(elapsedMs)} elapsed`,
};

export const refreshing = {
  keptAfterStaleRead: (label: string, shown: string, command: ServiceCommand, sentAt: string, kept: string) =>
    `${label} shows ${shown}, which may predate the ${command} sent at ${sentAt}; keeping ${kept}`,
  serviceGone: (serviceId: string) =>
    `service ${serviceId} no longer exists; removing its ServiceRunState from the stack`,
  endpointServiceGone: (serviceId: string, endpointId: string) =>
    `service ${serviceId} no longer exists; removing the deletion of endpoint ${endpointId} from the stack`,
};

export const destroying = {
  unknownOnDestroy: (label: string, value: unknown) =>
    `${label}: onDestroy ${JSON.stringify(value)} in the state is neither "leave" nor "stop"; nothing is stopped`,
  left: (label: string, observed: string) =>
    `${label}: ServiceRunState removed from the stack; the service is left ${observed} (no API call)`,
  stopped: (label: string, sentCommand: boolean) =>
    `${label}: ${sentCommand ? "stopped" : "already stopped"} on destroy (onDestroy: "stop"); ` +
    `ServiceRunState removed from the stack`,
  serviceGone: (label: string) =>
    `${label} no longer exists; nothing to stop, ServiceRunState removed from the stack`,
  terminal: (label: string, state: string | null | undefined) =>
    `${label} is ${state ?? "gone"}: nothing to stop; ServiceRunState removed from the stack`,
  endpointDeleted: (endpointId: string, serviceId: string, requestId: string | undefined) =>
    `deleted reverse private endpoint ${endpointId} of service ${serviceId}` +
    `${requestId ? ` (requestId ${requestId})` : ""}`,
  endpointAlreadyGone: (endpointId: string, serviceId: string, why: string) =>
    `reverse private endpoint ${endpointId} of service ${serviceId} was already gone; nothing to delete (${why})`,
};
