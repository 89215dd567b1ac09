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

/** The gRPC and protobuf modules of the @pulumi/pulumi the program at `cwd` resolves. */
function pulumiModules(cwd: string) {
  const pulumiDir = dirname(require.resolve("@pulumi/pulumi/package.json", { paths: [cwd] }));
  const load = (id: string) => require(require.resolve(id, { paths: [pulumiDir] }));
  return {
    pulumiDir,
    grpc: load("@grpc/grpc-js"),
    structpb: load("google-protobuf/google/protobuf/struct_pb"),
    provpb: require(join(pulumiDir, "proto", "provider_pb")),
    provgrpc: require(join(pulumiDir, "proto", "provider_grpc_pb")),
    statuspb: require(join(pulumiDir, "proto", "status_pb")),
  };
}
type Modules = ReturnType<typeof pulumiModules>;

interface HostProcess {
  child: ChildProcess;
  port: number;
  stdout: string[];
  stderr: string[];
  exited: Promise<void>;
}

/** Spawns the host as the engine does and waits for the port it prints first; its later lines are kept. */
async function spawnHost(
  pulumiDir: string,
  options: { cwd: string; project: string; env?: NodeJS.ProcessEnv },
): Promise<HostProcess> {
  const child = spawn(
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
  return { child, port, stdout, stderr, exited };
}

/** The init failure detail a failed call carries when the resource was recorded. */
function initFailureOf(modules: Modules, error: any): InitFailure | undefined {
  const raw = error?.metadata?.get?.("grpc-status-details-bin")?.[0];
  if (!raw) return undefined;
  const status = modules.statuspb.Status.deserializeBinary(new Uint8Array(raw));
  for (const any of status.getDetailsList()) {
    if (!String(any.getTypeUrl()).endsWith("pulumirpc.ErrorResourceInitFailed")) continue;
    const detail = modules.provpb.ErrorResourceInitFailed.deserializeBinary(any.getValue_asU8());
    return {
      id: detail.getId(),
      properties: detail.getProperties()?.toJavaScript() ?? {},
      reasons: detail.getReasonsList(),
    };
  }
  return undefined;
}

/** Each resource request, built from its fields (`properties`, `olds`, `news` as Structs). */
type RequestFields = { id?: string; urn?: string; properties?: Props; olds?: Props; news?: Props };

class GrpcProviderHost implements ProviderHost {
  readonly pid: number;
  readonly stdout: string[];
  readonly stderr: string[];
  private readonly client: any;

  constructor(
    private readonly modules: Modules,
    private readonly host: HostProcess,
  ) {
    this.pid = host.child.pid!;
    this.stdout = host.stdout;
    this.stderr = host.stderr;
    const address = `127.0.0.1:${host.port}`;
    this.client = new modules.provgrpc.ResourceProviderClient(
      address,
      modules.grpc.credentials.createInsecure(),
    );
  }

  configure(config: Props): Promise<void> {
    const request = new this.modules.provpb.ConfigureRequest();
    request.setArgs(this.struct(config));
    request.setAcceptsecrets(true);
    request.setAcceptresources(true);
    return this.call("configure", request, () => undefined);
  }

  check(urn: string, olds: Props, news: Props): Promise<CheckResult> {
    return this.call("check", this.request("CheckRequest", { urn, olds, news }), (response) => ({
      inputs: response.getInputs()?.toJavaScript() ?? {},
      failures: response
        .getFailuresList()
        .map((f: any) => ({ property: f.getProperty(), reason: f.getReason() })),
    }));
  }

  diff(id: string, urn: string, olds: Props, news: Props): Promise<DiffResult> {
    return this.call("diff", this.request("DiffRequest", { id, urn, olds, news }), (response) => ({
      changes: (["unknown", "none", "some"] as const)[response.getChanges()] ?? "unknown",
      replaces: response.getReplacesList(),
      deleteBeforeReplace: response.getDeletebeforereplace(),
    }));
  }

  create(urn: string, properties: Props): Promise<{ id: string; properties: Props }> {
    return this.call("create", this.request("CreateRequest", { urn, properties }), (response) => ({
      id: response.getId(),
      properties: response.getProperties()?.toJavaScript() ?? {},
    }));
  }

  read(id: string, urn: string, properties: Props): Promise<{ id: string; properties: Props }> {
    return this.call("read", this.request("ReadRequest", { id, urn, properties }), (response) => ({
      id: response.getId(),
      properties: response.getProperties()?.toJavaScript() ?? {},
    }));
  }

  update(id: string, urn: string, olds: Props, news: Props): Promise<{ properties: Props }> {
    return this.call("update", this.request("UpdateRequest", { id, urn, olds, news }), (response) => ({
      properties: response.getProperties()?.toJavaScript() ?? {},
    }));
  }

  delete(id: string, urn: string, properties: Props): Promise<void> {
    return this.call("delete", this.request("DeleteRequest", { id, urn, properties }), () => undefined);
  }

  async stop(): Promise<void> {
    this.client.close();
    if (this.host.child.exitCode === null) this.host.child.kill("SIGTERM");
    await this.host.exited;
  }

  private struct(value: Props): unknown {
    return this.modules.structpb.Struct.fromJavaScript(value);
  }

  private request(type: string, fields: RequestFields): unknown {
    const request = new this.modules.provpb[type]();
    if (fields.id !== undefined) request.setId(fields.id);
    if (fields.urn !== undefined) request.setUrn(fields.urn);
    if (fields.properties) request.setProperties(this.struct(fields.properties));
    if (fields.olds) request.setOlds(this.struct(fields.olds));
    if (fields.news) request.setNews(this.struct(fields.news));
    return request;
  }

  private call<T>(method: string, request: unknown, map: (response: any) => T): Promise<T> {
    return new Promise((resolve, reject) => {
      this.client[method](request, (error: any, response: any) => {
        // Anything thrown in here would be swallowed by grpc and leave the call hanging.
        try {
          if (error)
            reject(
              new HostCallError(String(error.details ?? error.message), initFailureOf(this.modules, error)),
            );
          else resolve(map(response));
        } catch (failure) {
          reject(failure);
        }
      });
    });
  }
}

/** Starts the host for the program at `cwd` and connects to it. */
export async function startProviderHost(options: {
  cwd: string;
  project: string;
  env?: NodeJS.ProcessEnv;
}): Promise<ProviderHost> {
  const modules = pulumiModules(options.cwd);
  return new GrpcProviderHost(modules, await spawnHost(modules.pulumiDir, options));
}
