// Reading requests and writing JSON answers over node:http.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";

/** No legitimate request to this API comes near this size. */
export const MAX_BODY_BYTES = 64 * 1024;

export class BodyTooLargeError extends Error {}

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLargeError(`request body exceeds ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Writes `text` with an exact Content-Length, so a keep-alive client knows where the answer ends. */
export function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  headers: OutgoingHttpHeaders = {},
): void {
  const body = Buffer.from(text, "utf8");
  res.writeHead(status, {
    ...headers,
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": body.length,
  });
  res.end(body);
}

export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: OutgoingHttpHeaders = {},
): void {
  sendText(res, status, JSON.stringify(value), headers);
}

/** Closes the connection without an answer: the client sees a reset socket. */
export function dropConnection(res: ServerResponse): void {
  res.socket?.destroy();
}
