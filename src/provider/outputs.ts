import type { Service } from "../api/schemas";
import { lastCommandToOutputs, type LastCommandOutput, type SentCommand } from "./lastCommand";
import type { ServiceRunStateInputs } from "./serviceRunStateInputs";

/*
 * The outputs of ServiceRunState: its inputs plus what the API showed last, never undefined (the
 * engine rejects it). Outputs no longer written (`transitionSeconds`) are dropped on each write.
 */

/** One endpoint of the service, as kept in the outputs (absent values as "" or 0). */
export interface EndpointOutput {
  /** `https`, `nativesecure` or `mysql` (or a protocol the API adds later). */
  protocol: string;
  /** Host name. */
  host: string;
  /** Port number. */
  port: number;
  /** Username of the endpoint, or null. */
  username: string | null;
}

export interface ServiceRunStateOutputs extends ServiceRunStateInputs {
  observedState: string;
  serviceName: string;
  databaseVersion: string;
  endpoints: EndpointOutput[];
  lastCommand: LastCommandOutput;
}

/** The outputs after the API showed `service`. */
export function outputsOf(
  inputs: ServiceRunStateInputs,
  service: Service,
  lastCommand?: SentCommand,
): ServiceRunStateOutputs {
  return {
    ...inputs,
    lastCommand: lastCommandToOutputs(lastCommand),
    observedState: service.state ?? "",
    serviceName: service.name ?? "",
    databaseVersion: service.databaseVersion ?? "",
    endpoints: (service.endpoints ?? []).map((endpoint) => ({
      protocol: endpoint.protocol ?? "",
      host: endpoint.host ?? "",
      port: endpoint.port ?? 0,
      username: endpoint.username ?? null,
    })),
  };
}

/** The outputs of an update that made no API call: the observed details stay as they were. */
export function keptOutputs(
  inputs: ServiceRunStateInputs,
  olds: Record<string, unknown>,
  lastCommand: SentCommand | undefined,
): ServiceRunStateOutputs {
  return {
    ...inputs,
    observedState: olds.observedState as string,
    serviceName: (olds.serviceName as string | undefined) ?? "",
    databaseVersion: (olds.databaseVersion as string | undefined) ?? "",
    endpoints: (olds.endpoints as EndpointOutput[] | undefined) ?? [],
    lastCommand: lastCommandToOutputs(lastCommand),
  };
}
