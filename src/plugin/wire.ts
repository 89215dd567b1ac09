import { isRpcSecret, specialSecretSig, specialSigKey, unwrapRpcSecret } from "@pulumi/pulumi/runtime/rpc";
import type { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { UNKNOWN_VALUE, type Props } from "../provider/inputs";
import { structpb } from "./rpc";

/*
 * Property maps between the wire (google.protobuf.Struct, with Pulumi's secret wrappers) and the
 * plain records the provider code takes. Unknowns (`04da6b54-...`, preview) are plain strings on
 * the wire and stay so: the provider code already lets them through check and diff.
 */

/** Whether the placeholder of a value not known yet is anywhere in `value`, however deep. */
export function holdsUnknown(value: unknown): boolean {
  if (value === UNKNOWN_VALUE) return true;
  if (value === null || typeof value !== "object") return false;
  return Object.values(value).some(holdsUnknown);
}

/** A record read off the wire: plain values, and the top-level keys whose value held a secret. */
export interface Unwrapped {
  props: Props;
  secretKeys: Set<string>;
}

/** The value with every secret wrapper removed, however deep; `found` is called for each one. */
function reveal(value: unknown, found: () => void): unknown {
  if (isRpcSecret(value)) {
    found();
    return reveal(unwrapRpcSecret(value), found);
  }
  if (Array.isArray(value)) return value.map((item) => reveal(item, found));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, reveal(item, found)]));
}

/** A Struct's record, its secrets unwrapped (the engine sends them wrapped: we accept secrets). */
export function fromStruct(struct: Struct | undefined): Unwrapped {
  const props: Props = {};
  const secretKeys = new Set<string>();
  for (const [key, value] of Object.entries(struct?.toJavaScript() ?? {}))
    props[key] = reveal(value, () => secretKeys.add(key));
  return { props, secretKeys };
}

function secretOf(value: unknown): Props {
  return { [specialSigKey]: specialSecretSig, value: value ?? null };
}

/**
 * A Struct of `props` with the keys in `secretKeys` wrapped as secrets (the engine does not
 * re-mark what a provider that accepts secrets returns). Undefined values are left out: a
 * Struct cannot hold them.
 */
export function toStruct(props: Props, secretKeys: ReadonlySet<string> = new Set()): Struct {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(props)) {
    if (value !== undefined) out[key] = secretKeys.has(key) ? secretOf(value) : value;
  }
  return structpb.Struct.fromJavaScript(out as Parameters<typeof structpb.Struct.fromJavaScript>[0]);
}
