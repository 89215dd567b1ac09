import { AsyncLocalStorage } from "node:async_hooks";
import { format } from "node:util";
import { enginepb, enginerpc, grpc } from "./rpc";

/*
 * Stdout carries the port and nothing else: the provider code's console lines go to the engine's
 * log under the resource being worked on, or to stderr (which the engine shows) when it cannot be
 * reached. Sending a line is itself a gRPC call, and gRPC logs through console.error: so gRPC's
 * logger and any console call made while a line is being sent write to stderr directly, and no
 * logging path leads back into itself.
 */

/** The URN the work being run files its log lines under. */
export const logUrn = new AsyncLocalStorage<string>();

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
      .setUrn(logUrn.getStore() ?? "");
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
