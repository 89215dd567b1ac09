import type * as grpcTypes from "@grpc/grpc-js";
import type * as pb from "@pulumi/pulumi/proto/provider_pb";
import type { Message } from "google-protobuf";
import { truncate } from "../api/redact";
import { PACKAGE_VERSION } from "../api/version";
import { cancelAll } from "../provider/context";
import { checkConfig, configure, diffConfig } from "./configHandlers";
import { invoke } from "./invoke";
import { logUrn } from "./log";
import { check, create, diff, read, remove, ResourceInitFailed, update } from "./resourceHandlers";
import { anypb, emptypb, grpc, pluginpb, provpb, provrpc, statuspb } from "./rpc";
import { schemaJson } from "./schema";

/*
 * The `pulumirpc.ResourceProvider` gRPC service. What the plugin does not serve (Handshake,
 * Construct, Call, Attach, mappings, List) grpc-js answers UNIMPLEMENTED: the engine then takes its
 * older paths.
 */

/**
 * A failure's message travels in the answer's trailers, whose size is limited: past the limit the
 * caller never hears back at all. Messages quote values cut, so this bound is only the last line.
 */
const MAX_MESSAGE_CHARS = 4_000;

/** The gRPC error for a failure; a resource to record travels as the engine's init failure. */
function serviceError(error: unknown): Partial<grpcTypes.StatusObject> {
  const message = truncate(error instanceof Error ? error.message : String(error), MAX_MESSAGE_CHARS);
  const metadata = new grpc.Metadata();
  if (error instanceof ResourceInitFailed) {
    const detail = new provpb.ErrorResourceInitFailed()
      .setId(error.id)
      .setProperties(error.properties)
      .setReasonsList(error.reasons.map((reason) => truncate(reason, MAX_MESSAGE_CHARS)));
    const packed = new anypb.Any();
    packed.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
    const status = new statuspb.Status().setCode(grpc.status.UNKNOWN).setMessage(message);
    status.addDetails(packed);
    metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
  }
  return { code: grpc.status.UNKNOWN, details: message, metadata };
}

/** A unary method from an async handler, its log lines filed under the request's URN when it has one. */
function unary<Req extends Message, Res extends Message>(handler: (request: Req) => Promise<Res>) {
  return (call: grpcTypes.ServerUnaryCall<Req, Res>, callback: grpcTypes.sendUnaryData<Res>) => {
    const request = call.request as Req & { getUrn?: () => string };
    logUrn.run(request.getUrn?.() ?? "", handler, request).then(
      (response) => callback(null, response),
      (error) => callback(serviceError(error)),
    );
  };
}

const empty = () => Promise.resolve(new emptypb.Empty());

export const implementation = {
  getPluginInfo: unary(() => Promise.resolve(new pluginpb.PluginInfo().setVersion(PACKAGE_VERSION))),
  getSchema: unary(() => Promise.resolve(new provpb.GetSchemaResponse().setSchema(schemaJson()))),
  checkConfig: unary(checkConfig),
  diffConfig: unary(diffConfig),
  configure: unary(configure),
  check: unary(check),
  diff: unary(diff),
  create: unary(create),
  read: unary(read),
  update: unary(update),
  delete: unary((request: pb.DeleteRequest) => remove(request).then(empty)),
  invoke: unary(invoke),
  cancel: unary(() => {
    cancelAll();
    return empty();
  }),
};

/** Serves on 127.0.0.1 (an ephemeral port) and resolves to the port. */
export function serve(): Promise<{ port: number; server: grpcTypes.Server }> {
  const server = new grpc.Server({ "grpc.max_receive_message_length": 400 * 1024 * 1024 });
  server.addService(
    provrpc.ResourceProviderService,
    implementation as unknown as grpcTypes.UntypedServiceImplementation,
  );
  return new Promise((resolve, reject) => {
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, port) =>
      error ? reject(error) : resolve({ port, server }),
    );
  });
}
