import { z } from "zod";
import type { Service } from "../api/schemas";
import { converge, ConvergeError } from "./converge";
import { defaultOrganizationId } from "./config";
import { providerContext } from "./context";
import {
  checkInputs,
  requireValid,
  timeoutField,
  uuidField,
  UNKNOWN_VALUE,
  type CheckFailure,
} from "./inputs";
import { systemClock } from "../api/clock";
import { once } from "../api/once";
import {
  lastCommandFromOutputs,
  lastCommandToOutputs,
  type LastCommandOutput,
  type SentCommand,
} from "./lastCommand";
import { resourceInitError } from "./outcomes";
import { satisfies, type DesiredState } from "./stateTable";
import {
  OWN_HISTORY_LENGTH,
  samplesFromOutputs,
  samplesToOutputs,
  withSample,
  type TransitionSamples,
  type TransitionSeconds,
} from "./transitions";

/** The provider side of ServiceRunState: every method of `serviceRunStateProvider` lands here. */

export const DEFAULT_TIMEOUT_SECONDS = 1200;
export { MAX_TIMEOUT_SECONDS } from "./inputs";
/** What destroy does to the service unless told otherwise: nothing. */
export const DEFAULT_ON_DESTROY = "leave";

export type OnDestroy = "leave" | "stop";

export interface ServiceRunStateInputs {
  organizationId: string;
  serviceId: string;
  state: DesiredState;
  timeoutSeconds: number;
  waitForState: boolean;
  onDestroy: OnDestroy;
  /** Bounds a stop on destroy; absent: `timeoutSeconds`. */
  deleteTimeoutSeconds?: number;
}

/** One endpoint of the service, as kept in the outputs (absent values as "" or 0; never undefined). */
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
  /**
   * How long this service's last few starts and stops took, in seconds, most recent last: the
   * next converge sleeps through most of the expected length and polls around its end.
   */
  transitionSeconds: TransitionSeconds;
  /**
   * The last start or stop this resource sent, when, and whether a GET has shown it since (empty
   * strings if none): for a while after it, a GET may still show the state it was sent from, and
   * the next converge or refresh does not take such a read at its word.
   */
  lastCommand: LastCommandOutput;
}

type Props = Record<string, unknown>;

/** The fields of ServiceRunState, validated at check and re-validated at every entry point. */
export const fieldSchemas = once(() => ({
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

export async function check(_olds: Props, news: Props): Promise<{ inputs: Props; failures: CheckFailure[] }> {
  return checkInputs(news, fieldSchemas(), {
    organizationId: defaultOrganizationId(),
    timeoutSeconds: DEFAULT_TIMEOUT_SECONDS,
    waitForState: true,
    onDestroy: DEFAULT_ON_DESTROY,
  });
}

/** The fields that name the service: a change replaces the resource. */
export const ID_FIELDS = ["organizationId", "serviceId"] as const;

export async function diff(_id: string, olds: Props, news: Props) {
  requireValid("ServiceRunState diff", news, fieldSchemas(), { allowUnknown: true });
  const replaces = ID_FIELDS.filter((k) => news[k] === UNKNOWN_VALUE || olds[k] !== news[k]);
  const desired = news.state as DesiredState;
  const stateChange =
    news.state === UNKNOWN_VALUE ||
    olds.state !== news.state ||
    !satisfies(olds.observedState as string | undefined, desired);
  const optionChange =
    olds.timeoutSeconds !== news.timeoutSeconds ||
    olds.waitForState !== news.waitForState ||
    // State written before onDestroy existed means "leave": no update just for upgrading.
    (olds.onDestroy ?? DEFAULT_ON_DESTROY) !== (news.onDestroy ?? DEFAULT_ON_DESTROY) ||
    olds.deleteTimeoutSeconds !== news.deleteTimeoutSeconds;
  return {
    changes: replaces.length > 0 || stateChange || optionChange,
    replaces,
    deleteBeforeReplace: false,
  };
}

/** The inputs an entry point acts on, re-validated: nothing but exactly running/stopped becomes a command. */
function inputsOf(props: Props, what: string): ServiceRunStateInputs {
  requireValid(`ServiceRunState ${what}`, props, fieldSchemas());
  return withDefaults(props);
}

export function withDefaults(props: Props): ServiceRunStateInputs {
  const inputs: ServiceRunStateInputs = {
    organizationId: props.organizationId as string,
    serviceId: props.serviceId as string,
    state: props.state as DesiredState,
    timeoutSeconds: (props.timeoutSeconds as number | undefined) ?? DEFAULT_TIMEOUT_SECONDS,
    waitForState: (props.waitForState as boolean | undefined) ?? true,
    onDestroy: props.onDestroy === "stop" ? "stop" : "leave",
  };
  // Only when set: outputs must hold no undefined.
  if (typeof props.deleteTimeoutSeconds === "number")
    inputs.deleteTimeoutSeconds = props.deleteTimeoutSeconds;
  return inputs;
}

/** The outputs: inputs plus what was observed, with no undefined anywhere (the engine rejects it). */
export function outputsOf(
  inputs: ServiceRunStateInputs,
  service: Service,
  history: TransitionSamples = { start: [], stop: [] },
  lastCommand?: SentCommand,
): ServiceRunStateOutputs {
  // Object.assign, not `{ ...inputs, ... }`: V8 builds a spread followed by more properties on a
  // slow path, about 9 us here against 0.5 (bench/overhead.ts, P1), on every read.
  return Object.assign({}, inputs, {
    transitionSeconds: samplesToOutputs(history),
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
  });
}

/**
 * Runs the converger; on failure after an accepted command, records the resource. `recorded` is
 * `lastCommand` from the old outputs, if any: kept until this converge sends a command.
 */
async function convergeToOutputs(
  inputs: ServiceRunStateInputs,
  props: Props,
  history: TransitionSamples,
  recorded: unknown,
): Promise<ServiceRunStateOutputs> {
  const context = providerContext();
  const previous = lastCommandFromOutputs(recorded, context.clock.now());
  try {
    const result = await converge(
      {
        organizationId: inputs.organizationId,
        serviceId: inputs.serviceId,
        desired: inputs.state,
        timeoutMs: inputs.timeoutSeconds * 1000,
        waitForState: inputs.waitForState,
        history,
        lastCommand: previous,
      },
      context,
    );
    const { transition } = result;
    const learned = transition
      ? withSample(history, transition.direction, transition.ms, OWN_HISTORY_LENGTH)
      : history;
    return outputsOf(inputs, result.service, learned, result.lastCommand);
  } catch (error) {
    if (error instanceof ConvergeError && error.commandAccepted) {
      const lastCommand = error.lastCommand;
      const observed = error.service
        ? outputsOf(inputs, error.service, history, lastCommand)
        : // Stryker disable next-line ObjectLiteral: unreachable, a command is only accepted after a GET showed the service (no GET is ever "possibly applied")
          {
            ...inputs,
            // Stryker disable next-line StringLiteral: unreachable, as above
            observedState: "",
            transitionSeconds: samplesToOutputs(history),
            lastCommand: lastCommandToOutputs(lastCommand),
          };
      throw resourceInitError(
        `${error.message} The command was accepted: the resource is recorded and the next \`pulumi up\` ` +
          `carries on from the service's state then.`,
        inputs.serviceId,
        { ...observed, __provider: props.__provider },
      );
    }
    throw error;
  }
}

export async function create(props: Props): Promise<{ id: string; outs: ServiceRunStateOutputs }> {
  const inputs = inputsOf(props, "create");
  return {
    id: inputs.serviceId,
    outs: await convergeToOutputs(inputs, props, samplesFromOutputs(undefined), undefined),
  };
}

export async function update(
  _id: string,
  olds: Props,
  news: Props,
): Promise<{ outs: ServiceRunStateOutputs }> {
  const inputs = inputsOf(news, "update");
  const converged =
    olds.state === inputs.state && satisfies(olds.observedState as string | undefined, inputs.state);
  if (converged) {
    // Only options changed: no API call, the observed details stay as they were.
    return {
      outs: {
        ...inputs,
        observedState: olds.observedState as string,
        serviceName: (olds.serviceName as string | undefined) ?? "",
        databaseVersion: (olds.databaseVersion as string | undefined) ?? "",
        endpoints: (olds.endpoints as EndpointOutput[] | undefined) ?? [],
        transitionSeconds: samplesToOutputs(samplesFromOutputs(olds.transitionSeconds)),
        // No API call, so no provider context (nor configuration) needed: the system clock is its clock.
        lastCommand: lastCommandToOutputs(lastCommandFromOutputs(olds.lastCommand, systemClock.now())),
      },
    };
  }
  const history = samplesFromOutputs(olds.transitionSeconds);
  return { outs: await convergeToOutputs(inputs, news, history, olds.lastCommand) };
}
