/*
 * Serves one TypeScript Pulumi program to the real CLI as an inline program: the Pulumi SDK's own
 * language server (the one its automation API starts) runs in this process, prints its address,
 * and `pulumi <command> --client <address>` runs the program through it. The Node.js language
 * host is not built here (its Go module is not served), so this is how the real engine reaches a
 * TypeScript program; everything past the program (engine, dynamic-provider host, plugins,
 * backend) is the CLI's own.
 *
 * Usage: node -r ts-node/register/transpile-only programServer.ts <program.ts>
 */
import * as grpc from "@grpc/grpc-js";
import { dirname, resolve, sep } from "node:path";

const programPath = resolve(process.argv[2] ?? "");
// The SDK's internals, loaded from the same copy of @pulumi/pulumi the program uses.
const { LanguageServer } = require("@pulumi/pulumi/automation/server");
const langrpc = require("@pulumi/pulumi/proto/language_grpc_pb");
const { grpcChannelOptions } = require("@pulumi/pulumi/runtime/settings");

/**
 * The program's module, loaded anew on each of the engine's Runs (`pulumi up` runs it for the
 * preview and again for the update); its exports become the stack's outputs.
 */
async function program(): Promise<Record<string, unknown>> {
  const programDir = dirname(programPath) + sep;
  for (const cached of Object.keys(require.cache))
    if (cached.startsWith(programDir)) delete require.cache[cached];
  return { ...(require(programPath) as Record<string, unknown>) };
}

const server = new grpc.Server(grpcChannelOptions);
server.addService(langrpc.LanguageRuntimeService, new LanguageServer(program));
server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, port) => {
  if (error) throw error;
  process.stdout.write(`127.0.0.1:${port}\n`);
});
// The parent ends this process when the CLI's command is over.
process.on("SIGTERM", () => server.forceShutdown());
