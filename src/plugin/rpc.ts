import { dirname } from "node:path";

/*
 * gRPC and the Pulumi protocol's generated stubs, from the copies @pulumi/pulumi ships and uses
 * itself: one @grpc/grpc-js and one google-protobuf in the process, whatever the user installed
 * (messages built by another copy of google-protobuf do not serialize).
 */

const pulumiDir = dirname(require.resolve("@pulumi/pulumi/package.json"));
const fromPulumi = (id: string): unknown => require(require.resolve(id, { paths: [pulumiDir] }));

export const grpc = fromPulumi("@grpc/grpc-js") as typeof import("@grpc/grpc-js");
export const structpb = fromPulumi(
  "google-protobuf/google/protobuf/struct_pb",
) as typeof import("google-protobuf/google/protobuf/struct_pb");
export const emptypb = fromPulumi(
  "google-protobuf/google/protobuf/empty_pb",
) as typeof import("google-protobuf/google/protobuf/empty_pb");
export const anypb = fromPulumi(
  "google-protobuf/google/protobuf/any_pb",
) as typeof import("google-protobuf/google/protobuf/any_pb");
export * as provpb from "@pulumi/pulumi/proto/provider_pb";
export * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
export * as pluginpb from "@pulumi/pulumi/proto/plugin_pb";
export * as statuspb from "@pulumi/pulumi/proto/status_pb";
export * as enginepb from "@pulumi/pulumi/proto/engine_pb";
export * as enginerpc from "@pulumi/pulumi/proto/engine_grpc_pb";
