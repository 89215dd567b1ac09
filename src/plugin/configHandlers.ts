import type * as pb from "@pulumi/pulumi/proto/provider_pb";
import { isDeepStrictEqual } from "node:util";
import { configure as configureProvider } from "../provider";
import { provpb } from "./rpc";
import { fromStruct } from "./wire";

/**
 * The provider's settings, handed on as the dynamic providers get them: `args` holds the keys
 * unprefixed, secrets wrapped; engines that send no args send `dbcloud:config:<key>` variables.
 */
export async function configure(request: pb.ConfigureRequest): Promise<pb.ConfigureResponse> {
  const args = fromStruct(request.getArgs()).props;
  const variables = request.getVariablesMap();
  await configureProvider({
    config: {
      get(key: string) {
        const [namespace, name] = key.split(":");
        return args[name] ?? variables.get(`${namespace}:config:${name}`);
      },
    },
  });
  // Secrets accepted: inputs arrive wrapped, and outputs are wrapped again where inputs were.
  // No preview support: the engine calls Create and Update only to apply.
  return new provpb.ConfigureResponse()
    .setAcceptsecrets(true)
    .setAcceptresources(true)
    .setSupportspreview(false);
}

/** The provider's inputs as given (secrets stay wrapped): they are checked where they are used. */
export async function checkConfig(request: pb.CheckRequest): Promise<pb.CheckResponse> {
  return new provpb.CheckResponse().setInputs(request.getNews());
}

/** A changed setting updates the provider in place; nothing is ever replaced for it. */
export async function diffConfig(request: pb.DiffRequest): Promise<pb.DiffResponse> {
  const olds = fromStruct(request.getOlds()).props;
  const news = fromStruct(request.getNews()).props;
  const keys = [...new Set([...Object.keys(olds), ...Object.keys(news)])];
  const changed = keys.filter((key) => !isDeepStrictEqual(olds[key], news[key]));
  const { DIFF_NONE, DIFF_SOME } = provpb.DiffResponse.DiffChanges;
  return new provpb.DiffResponse().setChanges(changed.length ? DIFF_SOME : DIFF_NONE).setDiffsList(changed);
}
