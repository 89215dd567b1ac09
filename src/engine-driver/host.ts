import { spawn, type ChildProcess } from "node:child_process";
import { dirname, join } from "node:path";

/**
 * The real dynamic-provider host (`@pulumi/pulumi/cmd/dynamic-provider`), started as the engine
 * starts it, and a promise-based gRPC client speaking to it with the same @grpc/grpc-js and
 * google-protobuf instances @pulumi/pulumi uses.
 */

type Props = Record<string, unknown>;

export interface InitFailure {
  id: string;
  properties: Props;
  reasons: string[];
}

/** A failed call: the gRPC message, and the init failure detail when the resource was recorded. */
export class HostCallError extends Error {
  readonly initFailure: InitFailure | undefined;
  constructor(message: string, initFailure: InitFailure | undefined) {
    super(message);
    this.name = "HostCallError";
    this.initFailure = initFailure;
  }
}

export interface CheckResult {
  inputs: Props;
  failures: { property: string; reason: string }[];
}

export interface DiffResult {
  changes: "unknown" | "none" | "some";
  replaces: string[];
  deleteBeforeReplace: boolean;
}

export interface ProviderHost {
  /** The host's process id (the benchmark reads its memory). */
  readonly pid: number;
  readonly stdout: string[];
  readonly stderr: string[];
  configure(config: Props): Promise<void>;
  check(urn: string, olds: Props, news: Props): Promise<CheckResult>;
  diff(id: string, urn: string, olds: Props, news: Props): Promise<DiffResult>;
  create(urn: string, properties: Props): Promise<{ id: string; properties: Props }>;
  read(id: string, urn: string, properties: Props): Promise<{ id: string; properties: Props }>;
  update(id: string, urn: string, olds: Props, news: Props): Promise<{ properties: Props }>;
  delete(id: string, urn: string, properties: Props): Promise<void>;
  stop(): Promise<void>;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- the generated protobuf modules are untyped here */
export async function startProviderHost(options: {
  cwd: string;
  project: string;
  env?: NodeJS.ProcessEnv;
}): Promise<ProviderHost> {
  const pulumiDir = dirname(require.resolve("@pulumi/pulumi/package.json", { paths: [options.cwd] }));
  const load = (id: string) => require(require.resolve(id, { paths: [pulumiDir] }));
  const grpc = load("@grpc/grpc-js");
  const structpb = load("google-protobuf/google/protobuf/struct_pb");
  const provpb = require(join(pulumiDir, "proto", "provider_pb"));
  const provgrpc = require(join(pulumiDir, "proto", "provider_grpc_pb"));
  const statuspb = require(join(pulumiDir, "proto", "status_pb"));

  const child: ChildProcess = spawn(
    process.execPath,
    [join(pulumiDir, "cmd", "dynamic-provider", "index.js"), "unused-engine-address"],
    {
      cwd: options.cwd,
      env: { ...process.env, ...options.env, PULUMI_NODEJS_PROJECT: options.project },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const stdout: string[] = [];
  const stderr: string[] = [];
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    let buffer = "";
    let seenPort = false;
    child.stdout!.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (!seenPort) {
          seenPort = true;
          resolve(Number(line.trim()));
        } else stdout.push(line);
      }
    });
    child.stderr!.on("data", (chunk: Buffer) =>
      stderr.push(...chunk.toString("utf8").split("\n").filter(Boolean)),
    );
    child.once("exit", (code) => {
      if (!seenPort)
        reject(new Error(`provider host exited (${code}) before printing its port: ${stderr.join("\n")}`));
    });
  });

  const client = new provgrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const struct = (value: Props) => structpb.Struct.fromJavaScript(value);

  function initFailureOf(error: any): InitFailure | undefined {
    const raw = error?.metadata?.get?.("grpc-status-details-bin")?.[0];
    if (!raw) return undefined;
    const status = statuspb.Status.deserializeBinary(new Uint8Array(raw));
    for (const any of status.getDetailsList()) {
      if (!String(any.getTypeUrl()).endsWith("pulumirpc.ErrorResourceInitFailed")) continue;
      const detail = provpb.ErrorResourceInitFailed.deserializeBinary(any.getValue_asU8());
      return {
        id: detail.getId(),
        properties: detail.getProperties()?.toJavaScript() ?? {},
        reasons: detail.getReasonsList(),
      };
    }
    return undefined;
  }

  function call<T>(method: string, request: unknown, map: (response: any) => T): Promise<T> {
    return new Promise((resolve, reject) => {
      client[method](request, (error: any, response: any) => {
        // Anything thrown in here would be swallowed by grpc and leave the call hanging.
        try {
          if (error) reject(new HostCallError(String(error.details ?? error.message), initFailureOf(error)));
          else resolve(map(response));
        } catch (failure) {
          reject(failure);
        }
      });
    });
  }

  return {
    pid: child.pid!,
    stdout,
    stderr,
    configure(config) {
      const request = new provpb.ConfigureRequest();
      request.setArgs(struct(config));
      request.setAcceptsecrets(true);
      request.setAcceptresources(true);
      return call("configure", request, () => undefined);
    },
    check(urn, olds, news) {
      const request = new provpb.CheckRequest();
      request.setUrn(urn);
      request.setOlds(struct(olds));
      request.setNews(struct(news));
      return call("check", request, (response) => ({
        inputs: response.getInputs()?.toJavaScript() ?? {},
        failures: response
          .getFailuresList()
          .map((f: any) => ({ property: f.getProperty(), reason: f.getReason() })),
      }));
    },
    diff(id, urn, olds, news) {
      const request = new provpb.DiffRequest();
      request.setId(id);
      request.setUrn(urn);
      request.setOlds(struct(olds));
      request.setNews(struct(news));
      return call("diff", request, (response) => ({
        changes: (["unknown", "none", "some"] as const)[response.getChanges()] ?? "unknown",
        replaces: response.getReplacesList(),
        deleteBeforeReplace: response.getDeletebeforereplace(),
      }));
    },
    create(urn, properties) {
      const request = new provpb.CreateRequest();
      request.setUrn(urn);
      request.setProperties(struct(properties));
      return call("create", request, (response) => ({
        id: response.getId(),
        properties: response.getProperties()?.toJavaScript() ?? {},
      }));
    },
    read(id, urn, properties) {
      const request = new provpb.ReadRequest();
      request.setId(id);
      request.setUrn(urn);
      request.setProperties(struct(properties));
      return call("read", request, (response) => ({
        id: response.getId(),
        properties: response.getProperties()?.toJavaScript() ?? {},
      }));
    },
    update(id, urn, olds, news) {
      const request = new provpb.UpdateRequest();
      request.setId(id);
      request.setUrn(urn);
      request.setOlds(struct(olds));
      request.setNews(struct(news));
      return call("update", request, (response) => ({
        properties: response.getProperties()?.toJavaScript() ?? {},
      }));
    },
    delete(id, urn, properties) {
      const request = new provpb.DeleteRequest();
      request.setId(id);
      request.setUrn(urn);
      request.setProperties(struct(properties));
      return call("delete", request, () => undefined);
    },
    async stop() {
      client.close();
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
