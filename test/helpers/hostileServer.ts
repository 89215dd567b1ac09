import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { TEST_KEY } from "./apiClient";
import { configureProvider, providerConfig } from "./providerConfig";

/**
 * A hand-written server on 127.0.0.1 that answers however a test says: stalls, trickles,
 * oversized or echoing bodies, odd statuses and headers. Counts the requests and the body bytes
 * it managed to write, so a test can see whether a client kept reading.
 */
export interface HostileServer {
  url: string;
  requests: { method: string; url: string; authorization: string | undefined }[];
  /** Body bytes written so far, over all responses. */
  bytesWritten(): number;
  close(): Promise<void>;
}

export type HostileHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  context: { count: number; write(chunk: string | Buffer): boolean },
) => void;

export async function startHostileServer(handler: HostileHandler): Promise<HostileServer> {
  const requests: HostileServer["requests"] = [];
  let bytes = 0;
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? "", url: req.url ?? "", authorization: req.headers.authorization });
    req.resume();
    const write = (chunk: string | Buffer) => {
      if (res.destroyed) return false;
      bytes += Buffer.byteLength(chunk);
      return res.write(chunk);
    };
    handler(req, res, { count: requests.length, write });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    bytesWritten: () => bytes,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The URL of a port on 127.0.0.1 that nobody listens on: a connection to it is refused. */
export async function refusedUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return `http://127.0.0.1:${port}`;
}

/** Writes `total` bytes of `fill` in 64 KB chunks, respecting back-pressure, until done or the client goes. */
export function streamBytes(
  res: ServerResponse,
  write: (chunk: Buffer) => boolean,
  total: number,
  fill = "x",
): void {
  const chunk = Buffer.alloc(64 * 1024, fill);
  let sent = 0;
  const pump = () => {
    while (sent < total && !res.destroyed) {
      sent += chunk.length;
      if (!write(chunk)) return res.once("drain", pump);
    }
    if (!res.destroyed) res.end();
  };
  res.on("close", () => (sent = total));
  pump();
}

/**
 * Points the provider at a hostile server, as `configure` would after the engine handed over the
 * stack config: with the test key unless `settings` names another, no rate limit, and a default
 * organization only when `settings` gives one.
 */
export async function configureProviderFor(
  server: HostileServer,
  settings: { keyId?: string; keySecret?: string; organizationId?: string } = {},
): Promise<void> {
  const { keyId = TEST_KEY.keyId, keySecret = TEST_KEY.keySecret, organizationId } = settings;
  await configureProvider(
    providerConfig({ url: server.url, keyId, keySecret }, { organizationId, rateLimit: "off" }),
  );
}

/** Answers with `statuses` in order (the last one repeats): a 200 with `okBody`, others an error envelope. */
export function scriptedServer(statuses: number[], okBody: string): Promise<HostileServer> {
  return startHostileServer((_req, res, { count }) => {
    const status = statuses[Math.min(count, statuses.length) - 1];
    res.writeHead(status, { "content-type": "application/json" });
    res.end(status === 200 ? okBody : JSON.stringify({ status, error: `answer ${count}` }));
  });
}
