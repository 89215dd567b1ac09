import { defaultOrganizationId } from "../config";
import { converge, ConvergeError, describeService } from "./converge";
import { providerContext } from "./context";
import { DEFAULT_ON_DESTROY, DEFAULT_TIMEOUT_SECONDS } from "./defaults";
import { pickFields, requireValid } from "./inputs";
import { lastCommandFromOutputs } from "./lastCommand";
import { isGone } from "./outcomes";
import { consoleLog, destroying } from "./progress";
import { requireSameService } from "./resourceId";
import { fieldSchemas, ID_FIELDS } from "./serviceRunStateInputs";

/** Destroy of ServiceRunState: leave the service as it is, or stop it (`onDestroy: "stop"`). */

type Props = Record<string, unknown>;

/** A timeout from state, used only if it is one check would accept (state may be hand-edited). */
function validTimeout(value: unknown): number | undefined {
  return fieldSchemas().timeoutSeconds.schema.safeParse(value).success ? (value as number) : undefined;
}

/**
 * Destroy. `leave` (and anything that is not exactly `stop`: state can be old or hand-edited)
 * makes no API call. `stop` stops the service with the converger and waits, bounded by
 * `deleteTimeoutSeconds`, else `timeoutSeconds`; a failure is thrown, which keeps the resource in
 * the stack so destroy can be run again.
 */
export async function remove(id: string, props: Props): Promise<void> {
  const serviceId = String(props.serviceId);
  const label = describeService({ name: props.serviceName as string | undefined }, serviceId);
  if (props.onDestroy !== "stop") {
    if (props.onDestroy !== undefined && props.onDestroy !== DEFAULT_ON_DESTROY)
      consoleLog.warn(destroying.unknownOnDestroy(label, props.onDestroy));
    const observed =
      typeof props.observedState === "string" && props.observedState ? props.observedState : "as it was";
    consoleLog.info(destroying.left(label, observed));
    return;
  }

  const timeoutSeconds =
    validTimeout(props.deleteTimeoutSeconds) ?? validTimeout(props.timeoutSeconds) ?? DEFAULT_TIMEOUT_SECONDS;
  const organizationId = (props.organizationId as string | undefined) ?? defaultOrganizationId();
  // A stop is a command: the ids it goes to are re-validated like every entry point's.
  requireValid(
    "ServiceRunState delete",
    { organizationId, serviceId: props.serviceId },
    pickFields(fieldSchemas(), ID_FIELDS),
  );
  requireSameService('ServiceRunState delete (the stop of onDestroy: "stop")', id, serviceId);
  const context = providerContext();
  try {
    const result = await converge(
      {
        organizationId: organizationId as string,
        serviceId,
        desired: "stopped",
        timeoutMs: timeoutSeconds * 1000,
        waitForState: true,
        // Right after a start, a GET may still show stopped: that is no reason to call it done.
        lastCommand: lastCommandFromOutputs(props.lastCommand, context.clock),
      },
      context,
    );
    consoleLog.info(
      destroying.stopped(describeService(result.service, serviceId), result.commands.length > 0),
    );
  } catch (error) {
    if (error instanceof ConvergeError && error.kind === "api" && isGone(error.cause, ["service"])) {
      consoleLog.info(destroying.serviceGone(label));
      return;
    }
    if (error instanceof ConvergeError && error.kind === "terminal") {
      // The state table decided on a service it saw: `error.service` is set. No command can stop it (terminated, being deleted, failed): keeping the resource would
      // only block destroy for good.
      consoleLog.warn(destroying.terminal(label, error.service!.state));
      return;
    }
    throw new Error(
      `${(error as Error).message} Stopping on destroy (onDestroy: "stop", waiting at most ${timeoutSeconds}s: ` +
        `customTimeouts.delete / deleteTimeoutSeconds, else timeoutSeconds) failed: the resource stays in the ` +
        `stack; run \`pulumi destroy\` again to retry.`,
      { cause: error },
    );
  }
}
