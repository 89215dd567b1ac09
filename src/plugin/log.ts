import { AsyncLocalStorage } from "node:async_hooks";
import { format } from "node:util";
import { enginepb, enginerpc, grpc } from "./rpc";

/*
 * Stdout carries the port and nothing else: the provider code's progress lines (console.log, as
 * the dynamic-provider host shows them) go to the engine's log, under the resource being worked
 * on, and to stderr when the engine cannot be reached (the engine shows a plugin's stderr too).
 */

const currentUrn = new AsyncLocalStorage<string>();

/** Runs `work` with its log lines filed under `urn`. */
export function underUrn<T>(urn: string, work: () => T): T {
  return currentUrn.run(urn, work);
}

type Severity = (typeof enginepb.LogSeverity)[keyof typeof enginepb.LogSeverity];

/** Points console.log/info/debug and console.warn/error at the engine (at `engineAddress`), else stderr. */
export function redirectConsole(engineAddress: string | undefined): void {
  const engine = engineAddress
    ? new enginerpc.EngineClient(engineAddress, grpc.credentials.createInsecure())
    : undefined;
  const toStderr = (line: string) => process.stderr.write(`${line}\n`);
  const send = (severity: Severity, args: unknown[]) => {
    const line = format(...args);
    if (!engine) return toStderr(line);
    const request = new enginepb.LogRequest()
      .setSeverity(severity)
      .setMessage(line)
      .setUrn(currentUrn.getStore() ?? "");
    engine.log(request, (error) => {
      if (error) toStderr(line);
    });
  };
  const { INFO, WARNING, DEBUG } = enginepb.LogSeverity;
  console.log = console.info = (...args: unknown[]) => send(INFO, args);
  console.debug = (...args: unknown[]) => send(DEBUG, args);
  console.warn = console.error = (...args: unknown[]) => send(WARNING, args);
}
