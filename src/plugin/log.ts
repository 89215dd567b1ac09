import { AsyncLocalStorage } from "node:async_hooks";
import { format } from "node:util";
import { enginepb, enginerpc, grpc } from "./rpc";

/*
 * Stdout carries the port and nothing else: the provider code's progress lines (console.log, as
 * the dynamic-provider host shows them) go to the engine's log, under the resource being worked
 * on, and to stderr when the engine cannot be reached (the engine shows a plugin's stderr too).
 *
 * Sending a line to the engine is itself a gRPC call, and gRPC's own logging (GRPC_TRACE,
 * GRPC_VERBOSITY) writes through console.error by default: routed to the engine, each line would
 * make more. So gRPC's logger writes to stderr directly, and any console call made while a line
 * is being handed to the engine goes to stderr too: no logging path ever leads back into itself.
 */

const currentUrn = new AsyncLocalStorage<string>();

/** Runs `work` with its log lines filed under `urn`. */
export function underUrn<T>(urn: string, work: () => T): T {
  return currentUrn.run(urn, work);
}

type Severity = (typeof enginepb.LogSeverity)[keyof typeof enginepb.LogSeverity];

const toStderr = (line: string) => {
  process.stderr.write(`${line}\n`);
};

/** gRPC's logger, as its default one words lines (`E `, `I `, `D `), but straight to stderr. */
const grpcLogger = {
  error: (message: unknown, ...rest: unknown[]) => toStderr(`E ${format(message, ...rest)}`),
  info: (message: unknown, ...rest: unknown[]) => toStderr(`I ${format(message, ...rest)}`),
  debug: (message: unknown, ...rest: unknown[]) => toStderr(`D ${format(message, ...rest)}`),
};

/** Points console.log/info/debug and console.warn/error at the engine (at `engineAddress`), else stderr. */
export function redirectConsole(engineAddress: string | undefined): void {
  grpc.setLogger(grpcLogger);
  const engine = engineAddress
    ? new enginerpc.EngineClient(engineAddress, grpc.credentials.createInsecure())
    : undefined;
  let sending = false;
  const send = (severity: Severity, args: unknown[]) => {
    const line = format(...args);
    if (!engine || sending) return toStderr(line);
    const request = new enginepb.LogRequest()
      .setSeverity(severity)
      .setMessage(line)
      .setUrn(currentUrn.getStore() ?? "");
    sending = true;
    try {
      engine.log(request, (error) => {
        if (error) toStderr(line);
      });
    } finally {
      sending = false;
    }
  };
  const { INFO, WARNING, DEBUG } = enginepb.LogSeverity;
  console.log = console.info = (...args: unknown[]) => send(INFO, args);
  console.debug = (...args: unknown[]) => send(DEBUG, args);
  console.warn = console.error = (...args: unknown[]) => send(WARNING, args);
}
