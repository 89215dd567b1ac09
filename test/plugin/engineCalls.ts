import * as provpb from "@pulumi/pulumi/proto/provider_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import type { PluginProcess } from "./pluginProcess";

/*
 * The calls the engine makes on a resource provider plugin, with the engine's message shapes, as
 * plain values in and out. Properties are sent as given: secrets wrapped, unknowns as the
 * engine's placeholder string.
 */

type Props = Record<string, unknown>;
const struct = (props: Props) => Struct.fromJavaScript(props as Parameters<typeof Struct.fromJavaScript>[0]);
const plain = (value: Struct | undefined): Props => (value?.toJavaScript() ?? {}) as Props;

export const SECRET_KEY = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
export const secret = (value: unknown) => ({ [SECRET_KEY]: SECRET_SIG, value });

export const urnOf = (type: string, name: string) => `urn:pulumi:dev::plugin-test::${type}::${name}`;
export const RUN_STATE = "dbcloud:index:ServiceRunState";
export const DELETION = "dbcloud:index:ReversePrivateEndpointDeletion";

export function engineCalls(plugin: PluginProcess) {
  return {
    async configure(args: Props, variables: Record<string, string> = {}) {
      const request = new provpb.ConfigureRequest().setArgs(struct(args)).setAcceptsecrets(true);
      for (const [key, value] of Object.entries(variables)) request.getVariablesMap().set(key, value);
      const response = await plugin.call<provpb.ConfigureResponse>("configure", request);
      return { acceptSecrets: response.getAcceptsecrets(), supportsPreview: response.getSupportspreview() };
    },
    async check(urn: string, olds: Props, news: Props) {
      const request = new provpb.CheckRequest().setUrn(urn).setOlds(struct(olds)).setNews(struct(news));
      const response = await plugin.call<provpb.CheckResponse>("check", request);
      const failures = response
        .getFailuresList()
        .map((f) => ({ property: f.getProperty(), reason: f.getReason() }));
      return { inputs: plain(response.getInputs()), failures };
    },
    /** `oldInputs`: the inputs the state holds, which newer engines send beside the old outputs. */
    async diff(id: string, urn: string, olds: Props, news: Props, oldInputs?: Props) {
      const request = new provpb.DiffRequest()
        .setId(id)
        .setUrn(urn)
        .setOlds(struct(olds))
        .setNews(struct(news));
      if (oldInputs) request.setOldInputs(struct(oldInputs));
      const response = await plugin.call<provpb.DiffResponse>("diff", request);
      const detailed: Record<string, number> = {};
      response.getDetaileddiffMap().forEach((entry, key) => (detailed[key] = entry.getKind()));
      const changes = (["unknown", "none", "some"] as const)[response.getChanges()];
      return { changes, replaces: response.getReplacesList(), diffs: response.getDiffsList(), detailed };
    },
    async create(urn: string, properties: Props, timeout = 0, preview = false) {
      const request = new provpb.CreateRequest()
        .setUrn(urn)
        .setProperties(struct(properties))
        .setTimeout(timeout)
        .setPreview(preview);
      const response = await plugin.call<provpb.CreateResponse>("create", request);
      return { id: response.getId(), properties: plain(response.getProperties()) };
    },
    async read(id: string, urn: string, properties: Props) {
      const request = new provpb.ReadRequest().setId(id).setUrn(urn).setProperties(struct(properties));
      const response = await plugin.call<provpb.ReadResponse>("read", request);
      const inputs = response.getInputs();
      return {
        id: response.getId(),
        properties: plain(response.getProperties()),
        inputs: inputs && plain(inputs),
      };
    },
    async update(id: string, urn: string, olds: Props, news: Props, timeout = 0, preview = false) {
      const request = new provpb.UpdateRequest()
        .setId(id)
        .setUrn(urn)
        .setOlds(struct(olds))
        .setNews(struct(news))
        .setPreview(preview);
      const response = await plugin.call<provpb.UpdateResponse>("update", request.setTimeout(timeout));
      return { properties: plain(response.getProperties()) };
    },
    async delete(id: string, urn: string, properties: Props, timeout = 0) {
      const request = new provpb.DeleteRequest().setId(id).setUrn(urn).setProperties(struct(properties));
      await plugin.call("delete", request.setTimeout(timeout));
    },
    async invoke(tok: string, args: Props) {
      const response = await plugin.call<provpb.InvokeResponse>(
        "invoke",
        new provpb.InvokeRequest().setTok(tok).setArgs(struct(args)),
      );
      const failures = response
        .getFailuresList()
        .map((f) => ({ property: f.getProperty(), reason: f.getReason() }));
      return { result: plain(response.getReturn()), failures };
    },
  };
}

/** Fails when any 8-character window of any form of the secret or its Basic token is in `text`. */
export function assertNoSecret(text: string, forms: readonly string[], where: string): void {
  for (const form of forms) {
    for (let i = 0; i + 8 <= form.length; i++) {
      if (text.includes(form.slice(i, i + 8)))
        throw new Error(`${where} leaks a form of the key secret: ${text}`);
    }
  }
}
