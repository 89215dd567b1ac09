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
export const provpb =
  require("@pulumi/pulumi/proto/provider_pb") as typeof import("@pulumi/pulumi/proto/provider_pb");
export const provrpc =
  require("@pulumi/pulumi/proto/provider_grpc_pb") as typeof import("@pulumi/pulumi/proto/provider_grpc_pb");
export const pluginpb =
  require("@pulumi/pulumi/proto/plugin_pb") as typeof import("@pulumi/pulumi/proto/plugin_pb");
export const statuspb =
  require("@pulumi/pulumi/proto/status_pb") as typeof import("@pulumi/pulumi/proto/status_pb");
export const enginepb =
  require("@pulumi/pulumi/proto/engine_pb") as typeof import("@pulumi/pulumi/proto/engine_pb");
export const enginerpc =
  require("@pulumi/pulumi/proto/engine_grpc_pb") as typeof import("@pulumi/pulumi/proto/engine_grpc_pb");
