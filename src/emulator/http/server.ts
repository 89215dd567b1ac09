// The node:http server: requests under /_emulator/ go to the control surface, the rest to the API.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type ApiContext, handleApiRequest } from "./api-handler";
import { CONTROL_PREFIX, type ControlTarget, handleControlRequest } from "./control-handler";
import { sendJson } from "./io";

export function createEmulatorServer(target: ControlTarget, apiContext: ApiContext): Server {
  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const pathname = new URL(req.url ?? "/", "http://emulator").pathname;
    if (pathname.startsWith(CONTROL_PREFIX)) return handleControlRequest(target, req, res, pathname);
    return handleApiRequest(apiContext, req, res, pathname);
  };
  return createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      // A bug in the emulator should show as a 500 to the client, not as a hung request.
      const requestId = randomUUID();
      const envelope = { status: 500, error: `Emulator error: ${String(error)}`, requestId };
      if (!res.headersSent) sendJson(res, 500, envelope, { "X-Request-Id": requestId });
      else res.destroy();
    });
  });
}

export function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

export function closeServer(server: Server, closing: AbortController): Promise<void> {
  closing.abort();
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    // Idle keep-alive connections would otherwise hold close() open for seconds.
    server.closeAllConnections();
  });
}

/** A URL clients can use: a wildcard listen address is reached through loopback. */
export function baseUrl(host: string, port: number): string {
  const reachableHost = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
  return `http://${reachableHost.includes(":") ? `[${reachableHost}]` : reachableHost}:${port}`;
}
