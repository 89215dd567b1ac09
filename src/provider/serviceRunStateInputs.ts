import type { Service } from "../api/schemas";
import { requireValid, type Props } from "./inputs";
import { lastCommandToOutputs, type SentCommand } from "./lastCommand";
import { checkAndDiff, withDefaults as defaultsOf, type InputsOf } from "./spec";
import { serviceRunStateSpec as spec } from "./specs/serviceRunState";

/* ServiceRunState's inputs (from its spec: rules, defaults, check and diff) and its outputs; no output is ever undefined. */

export const fieldSchemas = spec.fields;

export const ID_FIELDS = ["organizationId", "serviceId"] as const;

export const { check, diff } = checkAndDiff(spec);

export function inputsOf(props: Props, what: string) {
  requireValid(`ServiceRunState ${what}`, props, fieldSchemas());
  return withDefaults(props);
}

/** The inputs with their defaults; `deleteTimeoutSeconds` (absent: `timeoutSeconds`) only when set. */
export function withDefaults(props: Props): ServiceRunStateInputs {
  return defaultsOf(spec, props);
}

export type ServiceRunStateInputs = InputsOf<ReturnType<typeof spec.fields>>;

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

/** The outputs after the API showed `service`: the inputs plus what it showed (the engine rejects undefined). */
export function outputsOf(inputs: ServiceRunStateInputs, service: Service, lastCommand?: SentCommand) {
  // Not a spread followed by new keys, which V8 adds one by one on its slow path (every read).
  return Object.assign({}, inputs, {
    lastCommand: lastCommandToOutputs(lastCommand),
    observedState: service.state ?? "",
    serviceName: service.name ?? "",
    databaseVersion: service.databaseVersion ?? "",
    endpoints: (service.endpoints ?? []).map((endpoint): EndpointOutput => ({
      protocol: endpoint.protocol ?? "",
      host: endpoint.host ?? "",
      port: endpoint.port ?? 0,
      username: endpoint.username ?? null,
    })),
  });
}
