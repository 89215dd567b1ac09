import { z } from "zod";
import type { Service } from "../api/schemas";
import { lazy } from "../api/lazy";
import { DEFAULT_ON_DESTROY, DEFAULT_TIMEOUT_SECONDS } from "./defaults";
import { checkInputs, requireValid, timeoutField, uuidField, UNKNOWN_VALUE, type Props } from "./inputs";
import { lastCommandToOutputs, type SentCommand } from "./lastCommand";
import { satisfies, type DesiredState } from "./stateTable";

/* ServiceRunState's inputs (rules, defaults, check and diff) and its outputs; no output is ever undefined. */

export const fieldSchemas = lazy(() => ({
  organizationId: { schema: uuidField("organizationId"), required: true },
  serviceId: { schema: uuidField("serviceId"), required: true },
  state: {
    schema: z.enum(["running", "stopped"], { error: 'state must be "running" or "stopped"' }),
    required: true,
  },
  timeoutSeconds: { schema: timeoutField("timeoutSeconds"), required: false },
  waitForState: { schema: z.boolean({ error: "waitForState must be true or false" }), required: false },
  onDestroy: {
    schema: z.enum(["leave", "stop"], { error: 'onDestroy must be "leave" or "stop"' }),
    required: false,
  },
  deleteTimeoutSeconds: { schema: timeoutField("deleteTimeoutSeconds"), required: false },
}));

export const ID_FIELDS = ["organizationId", "serviceId"] as const;
const OPTION_FIELDS = ["timeoutSeconds", "waitForState", "deleteTimeoutSeconds"];

export async function check(_olds: Props, news: Props) {
  return checkInputs(news, fieldSchemas(), {
    timeoutSeconds: DEFAULT_TIMEOUT_SECONDS,
    waitForState: true,
    onDestroy: DEFAULT_ON_DESTROY,
  });
}

/** Outputs no longer written (`transitionSeconds`) are neither compared nor kept: old state shows no change. */
export async function diff(_id: string, olds: Props, news: Props) {
  requireValid("ServiceRunState diff", news, fieldSchemas(), true);
  const replaces = ID_FIELDS.filter((k) => news[k] === UNKNOWN_VALUE || olds[k] !== news[k]);
  const stateChange =
    news.state === UNKNOWN_VALUE ||
    olds.state !== news.state ||
    !satisfies(olds.observedState as string | undefined, news.state as DesiredState);
  const optionChange =
    OPTION_FIELDS.some((k) => olds[k] !== news[k]) ||
    // State written before onDestroy existed means "leave": no update just for upgrading.
    (olds.onDestroy ?? DEFAULT_ON_DESTROY) !== (news.onDestroy ?? DEFAULT_ON_DESTROY);
  const changes = replaces.length > 0 || stateChange || optionChange;
  return { changes, replaces, deleteBeforeReplace: false };
}

export function inputsOf(props: Props, what: string) {
  requireValid(`ServiceRunState ${what}`, props, fieldSchemas());
  return withDefaults(props);
}

export function withDefaults(props: Props) {
  const deleteTimeoutSeconds = props.deleteTimeoutSeconds;
  return {
    organizationId: props.organizationId as string,
    serviceId: props.serviceId as string,
    state: props.state as DesiredState,
    timeoutSeconds: (props.timeoutSeconds as number | undefined) ?? DEFAULT_TIMEOUT_SECONDS,
    waitForState: (props.waitForState as boolean | undefined) ?? true,
    onDestroy: props.onDestroy === "stop" ? ("stop" as const) : ("leave" as const),
    // Bounds a stop on destroy (absent: `timeoutSeconds`); only when set: outputs hold no undefined.
    ...(typeof deleteTimeoutSeconds === "number" && { deleteTimeoutSeconds }),
  };
}

export type ServiceRunStateInputs = ReturnType<typeof withDefaults>;

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
