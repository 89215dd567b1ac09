import { isDeepStrictEqual } from "node:util";
import type * as pb from "@pulumi/pulumi/proto/provider_pb";
import type { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { MAX_TIMEOUT_SECONDS } from "../provider/defaults";
import { UNKNOWN_VALUE, type Props } from "../provider/inputs";
import { kindOf, type ResourceKind } from "./resources";
import { provpb } from "./rpc";
import { fromStruct, holdsUnknown, toStruct, type Unwrapped } from "./wire";

/*
 * Check through Delete: the engine's messages turned into the provider code's calls and back.
 * `__provider` (the dynamic provider's serialized code) is dropped on the way in, so state the
 * dynamic resources wrote reads the same here. A preview, or an input not known yet, never
 * reaches create or update: nothing is sent.
 */

function withoutDynamicOnly({ __provider, ...props }: Props): Props {
  return props;
}

function incoming(struct: Struct | undefined): Unwrapped {
  const { props, secretKeys } = fromStruct(struct);
  return { props: withoutDynamicOnly(props), secretKeys };
}

/** A create or update that failed after changing the world: the engine records the resource. */
export class ResourceInitFailed extends Error {
  constructor(
    message: string,
    readonly id: string,
    readonly properties: Struct,
    readonly reasons: string[],
  ) {
    super(message);
    this.name = "ResourceInitFailed";
  }
}

/** The outputs to record: the timeout input as the program gave it (so the next diff sees no change). */
function outputsFor(kind: ResourceKind, outs: object, inputs: Unwrapped): Struct {
  const props = withoutDynamicOnly(outs as Props);
  if (kind.waitTimeoutInput) props[kind.waitTimeoutInput] = inputs.props[kind.waitTimeoutInput];
  return toStruct(props, inputs.secretKeys);
}

/** Whether the dynamic resource wrote this state and the plugin has not updated it yet. */
function writtenByDynamic(...structs: (Struct | undefined)[]): boolean {
  return structs.some((struct) => struct?.getFieldsMap().has("__provider") ?? false);
}

/**
 * The old properties as this plugin would have stored them. The dynamic resource stored its
 * `customTimeouts` in the timeout inputs; here the engine's timeouts stand in for those inputs, so
 * where the program leaves one out (its value here: the default), the value stored is no change.
 */
function asStoredHere(kind: ResourceKind, olds: Props, news: Props): Props {
  const stored = { ...olds };
  for (const [key, { timeouts, default: leftOut }] of Object.entries(kind.spec.fields())) {
    if (!timeouts || news[key] !== leftOut) continue;
    if (leftOut === undefined) delete stored[key];
    else stored[key] = leftOut;
  }
  return stored;
}

/** What a create or update that must not act answers: the inputs, every output unknown. */
function unknownOutputs(kind: ResourceKind, inputs: Unwrapped): Struct {
  const outs: Props = { ...inputs.props };
  for (const key of Object.keys(kind.spec.outputs)) outs[key] = UNKNOWN_VALUE;
  return outputsFor(kind, outs, inputs);
}

/** A failure that carries `id` and `properties` becomes ResourceInitFailed. */
async function converging<T>(kind: ResourceKind, inputs: Unwrapped, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const failure = error as Error & { id?: unknown; properties?: object; reasons?: string[] };
    if (typeof failure?.id !== "string" || !failure.id || !failure.properties) throw error;
    const properties = outputsFor(kind, failure.properties, inputs);
    throw new ResourceInitFailed(
      failure.message,
      failure.id,
      properties,
      failure.reasons ?? [failure.message],
    );
  }
}

/** The inputs with the engine's timeout (seconds, 0 for none) in `input`, within the provider's bound. */
function withTimeout(props: Props, input: string | undefined, seconds: number): Props {
  return input && seconds > 0 ? { ...props, [input]: Math.min(seconds, MAX_TIMEOUT_SECONDS) } : props;
}

export async function check(request: pb.CheckRequest): Promise<pb.CheckResponse> {
  const kind = kindOf(request.getUrn(), request.getType());
  const news = incoming(request.getNews());
  // The values the program marked secret are named so, never quoted.
  const result = await kind.check(incoming(request.getOlds()).props, news.props, news.secretKeys);
  const response = new provpb.CheckResponse().setInputs(toStruct(result.inputs, news.secretKeys));
  for (const { property, reason } of result.failures)
    response.addFailures(new provpb.CheckFailure().setProperty(property).setReason(reason));
  return response;
}

/** The inputs that changed (or force the replacement); with none, a drift of the observed state. */
function changedInputs(olds: Props, news: Props, replaces: readonly string[]): string[] {
  const changed = Object.keys(news).filter(
    (key) => replaces.includes(key) || !isDeepStrictEqual(olds[key], news[key]),
  );
  return changed.length || !("state" in news) ? changed : ["state"];
}

export async function diff(request: pb.DiffRequest): Promise<pb.DiffResponse> {
  const kind = kindOf(request.getUrn(), request.getType());
  const news = incoming(request.getNews()).props;
  const stored = incoming(request.getOlds()).props;
  const fromDynamic = writtenByDynamic(request.getOlds(), request.getOldInputs());
  const olds = fromDynamic ? asStoredHere(kind, stored, news) : stored;
  const result = await kind.diff(request.getId(), olds, news);
  const response = new provpb.DiffResponse().setDeletebeforereplace(false).setReplacesList(result.replaces);
  if (!result.changes) return response.setChanges(provpb.DiffResponse.DiffChanges.DIFF_NONE);
  response.setChanges(provpb.DiffResponse.DiffChanges.DIFF_SOME);
  const changed = changedInputs(olds, news, result.replaces);
  response.setDiffsList(changed).setHasdetaileddiff(changed.length > 0);
  const { UPDATE, UPDATE_REPLACE } = provpb.PropertyDiff.Kind;
  for (const key of changed) {
    const kindOfChange = result.replaces.includes(key) ? UPDATE_REPLACE : UPDATE;
    response.getDetaileddiffMap().set(key, new provpb.PropertyDiff().setKind(kindOfChange));
  }
  return response;
}

export async function create(request: pb.CreateRequest): Promise<pb.CreateResponse> {
  const kind = kindOf(request.getUrn(), request.getType());
  const inputs = incoming(request.getProperties());
  if (request.getPreview() || holdsUnknown(inputs.props))
    return new provpb.CreateResponse().setId("").setProperties(unknownOutputs(kind, inputs));
  const props = withTimeout(inputs.props, kind.waitTimeoutInput, request.getTimeout());
  const result = await converging(kind, inputs, () => kind.create(props));
  return new provpb.CreateResponse().setId(result.id).setProperties(outputsFor(kind, result.outs, inputs));
}

export async function update(request: pb.UpdateRequest): Promise<pb.UpdateResponse> {
  const kind = kindOf(request.getUrn(), request.getType());
  const olds = incoming(request.getOlds()).props;
  const news = incoming(request.getNews());
  if (request.getPreview() || holdsUnknown(news.props))
    return new provpb.UpdateResponse().setProperties(unknownOutputs(kind, news));
  const props = withTimeout(news.props, kind.waitTimeoutInput, request.getTimeout());
  const result = await converging(kind, news, () => kind.update(request.getId(), olds, props));
  return new provpb.UpdateResponse().setProperties(outputsFor(kind, result.outs, news));
}

export async function remove(request: pb.DeleteRequest): Promise<void> {
  const kind = kindOf(request.getUrn(), request.getType());
  const props = incoming(request.getProperties()).props;
  await kind.delete(request.getId(), withTimeout(props, kind.deleteTimeoutInput, request.getTimeout()));
}

/**
 * Refresh, or `pulumi import` when no properties come with the id: then the id alone says what
 * to read, and the inputs to adopt are returned with the outputs.
 */
export async function read(request: pb.ReadRequest): Promise<pb.ReadResponse> {
  const kind = kindOf(request.getUrn(), request.getType());
  const state = incoming(request.getProperties());
  const importing = Object.keys(state.props).length === 0;
  const from = importing ? kind.importFrom(request.getId()) : { id: request.getId(), props: state.props };
  const result = await kind.read(from.id, from.props);
  const response = new provpb.ReadResponse().setId(result.id);
  if (!result.id) return response;
  const props = withoutDynamicOnly(result.props);
  if (!importing) return response.setProperties(toStruct(props, state.secretKeys));
  const adopted = kind.adoptedInputs(props);
  return response.setProperties(toStruct({ ...props, ...adopted })).setInputs(toStruct(adopted));
}
