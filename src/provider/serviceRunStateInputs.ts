import { z } from "zod";
import { DbcloudError, quoted } from "../api/errors";
import type { Service, ServiceEndpoint } from "../api/schemas";
import { DEFAULT_ON_DESTROY, DEFAULT_TIMEOUT_SECONDS } from "./defaults";
import { timeoutField } from "./inputs";
import { lastCommandToOutputs, type SentCommand } from "./lastCommand";
import { checkAndDiff, defineResource, organizationIdField, serviceIdField, type InputsOf } from "./spec";
import { satisfies, type DesiredState } from "./stateTable";

/** An imported service's desired state is the one it shows; otherwise import waits for it to settle. */
function desiredFromObserved(serviceId: unknown, observed: unknown): DesiredState {
  const state = typeof observed === "string" ? observed : undefined;
  const desired = (["running", "stopped"] as const).find((target) => satisfies(state, target));
  if (desired) return desired;
  throw new DbcloudError(
    `dbcloud:index:ServiceRunState: cannot import service ${quoted(serviceId)} now: it is ` +
      `${state ? quoted(state) : "in no reported state"}, neither running nor stopped: import it once it has settled`,
  );
}

/**
 * ServiceRunState's spec; its handlers are in `serviceRunState.ts`. A doc comment is what TypeScript
 * programs read, a `description` what the schema and the other languages' SDKs show.
 */
export const serviceRunStateSpec = defineResource({
  name: "ServiceRunState",
  description:
    "Declares that a database service is running or stopped. `pulumi up` sends start or stop only when " +
    "needed and waits for the state; `pulumi refresh` shows drift; destroy leaves the service as it is, " +
    "or stops it with `onDestroy: stop`. Import id: the service id, or `organizationId/serviceId`.",
  fields: () => ({
    /** Organization of the service. Default: stack config `dbcloud:organizationId`, then `DBCLOUD_ORGANIZATION_ID`. */
    organizationId: organizationIdField(),
    /** The service (a uuid). Changing it replaces the resource. */
    serviceId: serviceIdField("The service (a uuid). Changing it replaces the resource."),
    /** The run state the service must be in. */
    state: {
      schema: z.enum(["running", "stopped"], { error: 'state must be "running" or "stopped"' }),
      description: "The run state the service must be in.",
      required: true,
      // Drift seen by refresh is a change too: the service no longer satisfies the state.
      changed: (olds, news) =>
        !satisfies(olds.observedState as string | undefined, news.state as DesiredState),
    },
    /** How long create/update may wait for the state, in seconds. Default 1200, or the longer of `customTimeouts.create`/`.update`. */
    timeoutSeconds: {
      schema: timeoutField("timeoutSeconds"),
      description:
        "How long create and update may wait for the state, in seconds (default 1200). The " +
        "`customTimeouts` option, when set, bounds the wait instead.",
      default: DEFAULT_TIMEOUT_SECONDS,
      timeouts: ["create", "update"],
    },
    /** Wait until the service is in the state (default true); false returns once the command is accepted. */
    waitForState: {
      schema: z.boolean({ error: "waitForState must be true or false" }),
      description:
        "Wait until the service is in the state (default true); false returns once the command is accepted.",
      default: true,
    },
    /** What destroy does to the service: `leave` it (default), or `stop` it and wait; a failed stop keeps the resource. */
    onDestroy: {
      schema: z.enum(["leave", "stop"], { error: 'onDestroy must be "leave" or "stop"' }),
      description:
        "What destroying the resource does to the service: `leave` it as it is (default), or `stop` it and wait.",
      // State written before onDestroy existed means "leave": no update just for upgrading.
      default: DEFAULT_ON_DESTROY,
      invalidIsDefault: true,
    },
    /** How long a stop on destroy may wait, in seconds. Default `customTimeouts.delete`, else `timeoutSeconds`. */
    deleteTimeoutSeconds: {
      schema: timeoutField("deleteTimeoutSeconds"),
      description:
        "How long a stop on destroy may wait, in seconds. Default: `customTimeouts.delete`, else `timeoutSeconds`.",
      timeouts: ["delete"],
      invalidIsDefault: true,
    },
  }),
  outputs: {
    /** The last start or stop this resource sent, when, and whether a GET has shown it since. */
    lastCommand: [
      "LastCommand",
      "The last start or stop this resource sent, when, and whether a read has shown it since.",
    ],
    /** The state last seen by the API (after create, update or refresh). */
    observedState: ["string", "The state the service showed at the last read."],
    /** The service's name, as the API showed it last. */
    serviceName: ["string", "The service's name."],
    /** The service's database version, as the API showed it last. */
    databaseVersion: ["string", "The service's database version."],
    /** The service's endpoints (protocol, host, port, username), as the API showed them last. */
    endpoints: ["ServiceEndpoint[]", "The service's endpoints."],
  },
  types: {
    LastCommand: {
      description: "The last start or stop a ServiceRunState sent.",
      properties: {
        command: ["string", "`start` or `stop`; empty when this resource has sent none."],
        sentAt: ["string", "When the command was accepted (ISO 8601, UTC); empty with no command."],
        seen: ["boolean", "Whether a read has shown the command since."],
      },
    },
  },
  id: { fields: ["serviceId"], labels: ["service"] },
  importId: {
    form:
      "a service id, or organizationId/serviceId (e.g. 3f2a1c9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b, or " +
      "<organization uuid>/<service uuid>)",
    minParts: 1,
  },
  adopt: (outputs) => ({ state: desiredFromObserved(outputs.serviceId, outputs.observedState) }),
});

export const { check, diff } = checkAndDiff(serviceRunStateSpec);

export type ServiceRunStateInputs = InputsOf<ReturnType<typeof serviceRunStateSpec.fields>>;

/** One endpoint of the service as the outputs keep it: every field there (absent as "" or 0, a username as null). */
export type EndpointOutput = {
  [K in keyof ServiceEndpoint]-?: K extends "username" ? string | null : NonNullable<ServiceEndpoint[K]>;
};

/** The inputs plus what the API showed, none undefined (the engine rejects undefined). */
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
