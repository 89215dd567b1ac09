import type * as pb from "@pulumi/pulumi/proto/provider_pb";
import { InvalidInputError, quoted } from "../api/errors";
import { holdsSecret } from "../api/redact";
import { defaultOrganizationId } from "../config";
import { providerContext, readDeadline } from "../provider/context";
import { checkFields, pickFields, withSecrets } from "../provider/inputs";
import { serviceRunStateSpec } from "../provider/serviceRunStateInputs";
import { provpb } from "./rpc";
import { fromStruct, toStruct } from "./wire";

/** The plugin's one function: the read of `getService`, its secret-looking fields returned as secrets. */
export const GET_SERVICE = "dbcloud:index:getService";

export async function invoke(request: pb.InvokeRequest): Promise<pb.InvokeResponse> {
  if (request.getTok() !== GET_SERVICE)
    throw new InvalidInputError(`dbcloud: unknown function ${quoted(request.getTok())}`);
  const { props: args, secretKeys: secretArgs } = fromStruct(request.getArgs());
  const ids = { organizationId: args.organizationId ?? defaultOrganizationId(), serviceId: args.serviceId };
  // The same rules as the resources' ids, unknowns refused: a read needs real ids.
  const idFields = pickFields(serviceRunStateSpec.fields(), ["organizationId", "serviceId"]);
  const failures = checkFields(ids, withSecrets(idFields, secretArgs), false);
  const response = new provpb.InvokeResponse();
  if (failures.length) {
    for (const { property, reason } of failures)
      response.addFailures(new provpb.CheckFailure().setProperty(property).setReason(reason));
    return response;
  }
  const context = providerContext();
  const { service } = await context.client.getService(ids.organizationId as string, ids.serviceId as string, {
    deadline: readDeadline(),
    signal: context.signal,
  });
  const fields = service as Record<string, unknown>;
  const secretKeys = new Set(Object.keys(fields).filter((key) => holdsSecret({ [key]: fields[key] })));
  return response.setReturn(toStruct(fields, secretKeys));
}
