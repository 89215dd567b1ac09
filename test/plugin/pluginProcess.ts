import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as enginerpc from "@pulumi/pulumi/proto/engine_grpc_pb";
import type { LogRequest } from "@pulumi/pulumi/proto/engine_pb";
import * as provpb from "@pulumi/pulumi/proto/provider_pb";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as statuspb from "@pulumi/pulumi/proto/status_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import type { Message } from "google-protobuf";

/*
 * The plugin started as the engine starts it (flags, then its engine address as the last
 * argument; the port on stdout's first line), a gRPC client speaking to it, and a stand-in for
 * the engine's `pulumirpc.Engine` service that collects the log lines the plugin sends there.
 */

export const ROOT = join(__dirname, "..", "..");

/** The bin `pulumi-resource-dbcloud` of the package in `packageDir`, as its package.json declares it. */
export function binCommand(packageDir = ROOT): string[] {
  const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
  return [join(packageDir, manifest.bin["pulumi-resource-dbcloud"])];
}

/** A source-plugin folder, run by @pulumi/pulumi's plugin runner as the Node language host runs it. */
export function sourcePluginCommand(folder = join(ROOT, "plugin")): string[] {
  return [require.resolve("@pulumi/pulumi/cmd/run-plugin/index.js", { paths: [ROOT] }), folder];
}

export interface LogLine {
  severity: number;
  message: string;
  urn: string;
}

/** A stand-in engine that collects `Log` calls. */
export async function startFakeEngine(): Promise<{ address: string; lines: LogLine[]; stop(): void }> {
  const lines: LogLine[] = [];
  const server = new grpc.Server();
  const log = (call: grpc.ServerUnaryCall<LogRequest, Empty>, callback: grpc.sendUnaryData<Empty>) => {
    const request = call.request;
    lines.push({ severity: request.getSeverity(), message: request.getMessage(), urn: request.getUrn() });
    callback(null, new Empty());
  };
  server.addService(enginerpc.EngineService, { log } as grpc.UntypedServiceImplementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return { address: `127.0.0.1:${port}`, lines, stop: () => server.forceShutdown() };
}

export interface InitFailure {
  id: string;
  properties: Record<string, unknown>;
  reasons: string[];
}

/** A failed call: its gRPC code and message, and the init failure detail when there is one. */
export class PluginCallError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly initFailure: InitFailure | undefined,
  ) {
    super(message);
  }
}

function initFailureOf(error: grpc.ServiceError): InitFailure | undefined {
  const raw = error.metadata?.get("grpc-status-details-bin")?.[0];
  if (!raw) return undefined;
  const status = statuspb.Status.deserializeBinary(new Uint8Array(raw as Buffer));
  const any = status
    .getDetailsList()
    .find((d) => d.getTypeUrl().endsWith("pulumirpc.ErrorResourceInitFailed"));
  if (!any) return undefined;
  const detail = provpb.ErrorResourceInitFailed.deserializeBinary(any.getValue_asU8());
  return {
    id: detail.getId(),
    properties: detail.getProperties()?.toJavaScript() ?? {},
    reasons: detail.getReasonsList(),
  };
}

export interface PluginProcess {
  /** Lines after the port on stdout (there must be none), and stderr's lines. */
  stdout: string[];
  stderr: string[];
  /** Calls a ResourceProvider method by its client name (`configure`, `check`, ...). */
  call<T extends Message>(method: string, request: Message): Promise<T>;
  stop(): Promise<void>;
}

/** The port from the first stdout line; later lines into `stdout`. */
function readPort(child: ChildProcess, stdout: string[], stderr: string[]): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let buffer = "";
    let seenPort = false;
    child.stdout!.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      const lines = buffer.split("\n");
      buffer = lines.pop()!;
      for (const line of lines) {
        if (seenPort) stdout.push(line);
        else if (/^\d+$/.test(line)) resolve(Number(line));
        else reject(new Error(`the first stdout line is not a port: ${JSON.stringify(line)}`));
        seenPort = true;
      }
    });
    child.once("exit", (code) =>
      reject(new Error(`plugin exited (${code}) before its port: ${stderr.join("\n")}`)),
    );
  });
}

export async function startPlugin(
  command: string[],
  options: { engine: string; env?: NodeJS.ProcessEnv; cwd?: string },
): Promise<PluginProcess> {
  const child = spawn(process.execPath, [...command, "--logtostderr", "-v=1", options.engine], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.stderr!.on("data", (chunk: Buffer) =>
    stderr.push(...chunk.toString("utf8").split("\n").filter(Boolean)),
  );
  const port = await readPort(child, stdout, stderr);
  const client = new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const methods = client as unknown as Record<
    string,
    (request: Message, done: (error: grpc.ServiceError | null, response: Message) => void) => void
  >;
  return {
    stdout,
    stderr,
    call: <T extends Message>(method: string, request: Message) =>
      new Promise<T>((resolve, reject) => {
        methods[method].call(client, request, (error: grpc.ServiceError | null, response: Message) => {
          if (error) reject(new PluginCallError(error.details, error.code, initFailureOf(error)));
          else resolve(response as T);
        });
      }),
    async stop() {
      client.close();
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
