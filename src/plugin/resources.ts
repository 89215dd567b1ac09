import { DbcloudError, InvalidInputError, quoted } from "../api/errors";
import * as provider from "../provider";
import type { Props } from "../provider/inputs";
import {
  checkFields,
  defaultOrganizationId,
  DEFAULT_DELETE_TIMEOUT_SECONDS,
  DEFAULT_TIMEOUT_SECONDS,
  MAX_TIMEOUT_SECONDS,
  pickFields,
  reversePrivateEndpointDeletionFields,
  satisfies,
  serviceRunStateDefaults,
  serviceRunStateFields,
  serviceRunStateOutputs,
} from "./providerInternals";

/*
 * The plugin's resource types, each mapped onto the provider code the dynamic resources run
 * (through the `pulumi-dbcloud/provider` module): the plugin adds only what the engine gives a
 * plugin and not a dynamic provider (its timeouts, import by id).
 */

export interface ResourceKind {
  token: string;
  /** The dynamic resource's type: the alias a stack moves its resources with. */
  dynamicType: string;
  check(
    olds: Props,
    news: Props,
  ): Promise<{ inputs: Props; failures: { property: string; reason: string }[] }>;
  diff(id: string, olds: Props, news: Props): Promise<{ changes: boolean; replaces: string[] }>;
  create(inputs: Props): Promise<{ id: string; outs: object }>;
  read(id: string, props: Props): Promise<{ id: string; props: Props }>;
  update(id: string, olds: Props, news: Props): Promise<{ outs: object }>;
  delete(id: string, props: Props): Promise<void>;
  /** The input that create and update wait within: the engine's `timeout` goes there. */
  waitTimeoutInput?: string;
  /** The input that delete waits within. */
  deleteTimeoutInput: string;
  /** `pulumi import`: the resource's id and the properties to read from, given only the import id. */
  importFrom(id: string): { id: string; props: Props };
  /** `pulumi import`: the inputs to adopt, from what Read found. */
  adoptedInputs(outputs: Props): Props;
  /** The outputs read from the API rather than given: unknown until a create or update has run. */
  computedOutputs(): readonly string[];
  /**
   * The inputs the dynamic resource fills from `customTimeouts`, each with the value it has here
   * when the program leaves it out (the engine's timeouts stand in for it instead).
   */
  customTimeoutInputs: Readonly<Props>;
}

/** What the engine's timeout (seconds, 0 when none) makes of an input, within the provider's bound. */
export function engineTimeout(seconds: number): number | undefined {
  return seconds > 0 ? Math.min(seconds, MAX_TIMEOUT_SECONDS) : undefined;
}

/** An import id's documented forms, and an example of each. */
const IMPORT_FORMS = {
  serviceRunState:
    "a service id, or organizationId/serviceId (e.g. 3f2a1c9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b, or " +
    "<organization uuid>/<service uuid>)",
  endpointDeletion:
    "organizationId/serviceId/reversePrivateEndpointId (e.g. <organization uuid>/<service uuid>/rpe-1)",
};

/**
 * The properties an import id names, checked as the resource's ids are (the organization defaulted
 * from config): an import error names the id as given and its expected form, never the state.
 */
function importedIds(token: string, id: string, form: string, parts: Props | undefined): Props {
  const cannot = `${token}: cannot import ${quoted(id)}: the import id is ${form}`;
  if (!parts) throw new InvalidInputError(cannot);
  const fields =
    token === SERVICE_RUN_STATE ? serviceRunStateFields() : reversePrivateEndpointDeletionFields();
  const failures = checkFields(parts, pickFields(fields, Object.keys(parts)), false);
  if (!failures.length) return parts;
  const reasons = failures.map(({ property, reason }) =>
    property === "organizationId" && parts.organizationId === undefined
      ? "it names no organization, and none is configured: give it in the id, or set stack config " +
        "dbcloud:organizationId or environment variable DBCLOUD_ORGANIZATION_ID"
      : reason,
  );
  throw new InvalidInputError(`${cannot}; in this one, ${reasons.join("; ")}`);
}

/** The parts of `id` split by "/", when there are `counts` of them, none empty. */
function split(id: string, counts: readonly number[]): string[] | undefined {
  const parts = id.split("/");
  return counts.includes(parts.length) && parts.every(Boolean) ? parts : undefined;
}

const SERVICE_RUN_STATE = "dbcloud:index:ServiceRunState";
const ENDPOINT_DELETION = "dbcloud:index:ReversePrivateEndpointDeletion";

/** A service shows its desired state when it satisfies it; otherwise import waits for it to settle. */
function desiredFromObserved(serviceId: unknown, observed: unknown): "running" | "stopped" {
  const state = typeof observed === "string" ? observed : undefined;
  if (satisfies(state, "running")) return "running";
  if (satisfies(state, "stopped")) return "stopped";
  throw new DbcloudError(
    `${SERVICE_RUN_STATE}: cannot import service ${quoted(serviceId)} now: it is ` +
      `${state ? quoted(state) : "in no reported state"}, neither running nor stopped: import it once it has settled`,
  );
}

export const RESOURCES: readonly ResourceKind[] = [
  {
    token: SERVICE_RUN_STATE,
    dynamicType: "pulumi-nodejs:dynamic/dbcloud:ServiceRunState",
    check: provider.serviceRunStateCheck,
    diff: provider.serviceRunStateDiff,
    create: provider.serviceRunStateCreate,
    read: provider.serviceRunStateRead,
    update: provider.serviceRunStateUpdate,
    delete: provider.serviceRunStateDelete,
    waitTimeoutInput: "timeoutSeconds",
    deleteTimeoutInput: "deleteTimeoutSeconds",
    importFrom(id) {
      const parts = split(id, [1, 2]);
      const given = parts && {
        organizationId: parts.length === 2 ? parts[0] : defaultOrganizationId(),
        serviceId: parts[parts.length - 1],
      };
      const ids = importedIds(SERVICE_RUN_STATE, id, IMPORT_FORMS.serviceRunState, given);
      return { id: ids.serviceId as string, props: ids };
    },
    adoptedInputs: (outputs) => ({
      organizationId: outputs.organizationId,
      serviceId: outputs.serviceId,
      state: desiredFromObserved(outputs.serviceId, outputs.observedState),
    }),
    computedOutputs: () => {
      const outputs = serviceRunStateOutputs(serviceRunStateDefaults({}), {});
      return Object.keys(outputs).filter((key) => !(key in serviceRunStateFields()));
    },
    customTimeoutInputs: { timeoutSeconds: DEFAULT_TIMEOUT_SECONDS, deleteTimeoutSeconds: undefined },
  },
  {
    token: ENDPOINT_DELETION,
    dynamicType: "pulumi-nodejs:dynamic/dbcloud:ReversePrivateEndpointDeletion",
    check: provider.reversePrivateEndpointDeletionCheck,
    diff: provider.reversePrivateEndpointDeletionDiff,
    create: provider.reversePrivateEndpointDeletionCreate,
    read: provider.reversePrivateEndpointDeletionRead,
    update: provider.reversePrivateEndpointDeletionUpdate,
    delete: provider.reversePrivateEndpointDeletionDelete,
    deleteTimeoutInput: "timeoutSeconds",
    importFrom(id) {
      const parts = split(id, [3]);
      const given = parts && {
        organizationId: parts[0],
        serviceId: parts[1],
        reversePrivateEndpointId: parts[2],
      };
      return { id, props: importedIds(ENDPOINT_DELETION, id, IMPORT_FORMS.endpointDeletion, given) };
    },
    adoptedInputs: (outputs) => ({
      organizationId: outputs.organizationId,
      serviceId: outputs.serviceId,
      reversePrivateEndpointId: outputs.reversePrivateEndpointId,
    }),
    // Its outputs are its inputs.
    computedOutputs: () => [],
    customTimeoutInputs: { timeoutSeconds: DEFAULT_DELETE_TIMEOUT_SECONDS },
  },
];

/** The kind a URN's type names (`urn:pulumi:stack::project::<type>::name`, parents before `$`). */
export function kindOf(urn: string, type?: string): ResourceKind {
  const token = type || (urn.split("::")[2] ?? "").split("$").pop() || "";
  const kind = RESOURCES.find((candidate) => candidate.token === token);
  if (!kind) throw new InvalidInputError(`dbcloud: unknown resource type ${quoted(token)}`);
  return kind;
}
