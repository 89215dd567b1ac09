// Writing an answer's body slowly or hugely, as hostile servers do: in small chunks with a pause
// between them (trickle), or padded to any size while still valid JSON (oversize). The padding is
// streamed from one reused buffer with backpressure, never built in memory.
import type { OutgoingHttpHeaders, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";

export interface BodyShape {
  /** Pause between chunks, in ms; undefined sends at full speed. */
  trickleMs?: number;
  /** Bytes per trickled chunk; default 1. */
  trickleBytes?: number;
  /** Pad a JSON object body to this many bytes (a `padding` field); never shrinks a body. */
  oversizeBytes?: number;
}

const PAD_CHUNK = Buffer.alloc(64 * 1024, "x");

/** The body as parts; the padding part is a byte count, written from PAD_CHUNK. */
type Part = Buffer | { padBytes: number };

function partsOf(text: string, oversizeBytes: number | undefined): Part[] {
  const whole = Buffer.from(text, "utf8");
  if (oversizeBytes === undefined || whole.length >= oversizeBytes || !text.endsWith("}")) return [whole];
  // {"status":200,...}  ->  {"status":200,...,"padding":"xxxx"}
  const head = Buffer.from(`${text.slice(0, -1)}${text.length > 2 ? "," : ""}"padding":"`, "utf8");
  const tail = Buffer.from('"}', "utf8");
  const padBytes = Math.max(0, oversizeBytes - head.length - tail.length);
  return [head, { padBytes }, tail];
}

function partLength(part: Part): number {
  return Buffer.isBuffer(part) ? part.length : part.padBytes;
}

/** Pieces of at most `size` bytes, padding produced lazily. */
function* pieces(parts: Part[], size: number): Generator<Buffer> {
  for (const part of parts) {
    if (Buffer.isBuffer(part)) {
      for (let at = 0; at < part.length; at += size) yield part.subarray(at, at + size);
      continue;
    }
    for (let left = part.padBytes; left > 0; left -= Math.min(left, size)) {
      const bytes = Math.min(left, size);
      yield bytes === PAD_CHUNK.length ? PAD_CHUNK : PAD_CHUNK.subarray(0, bytes);
    }
  }
}

/** Resolves when the buffer drained, or the connection is gone (then `gone` is true). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/**
 * Writes the answer with an exact Content-Length. Stops quietly when the client hangs up or
 * `closing` is aborted (the emulator is shutting down): the socket is then destroyed.
 */
export async function sendShaped(
  res: ServerResponse,
  status: number,
  text: string,
  headers: OutgoingHttpHeaders,
  shape: BodyShape,
  closing: AbortSignal,
): Promise<void> {
  const parts = partsOf(text, shape.oversizeBytes);
  const length = parts.reduce((sum, part) => sum + partLength(part), 0);
  res.writeHead(status, { ...headers, "Content-Length": length });
  const trickle = shape.trickleMs !== undefined;
  const size = trickle ? (shape.trickleBytes ?? 1) : PAD_CHUNK.length;
  let first = true;
  for (const piece of pieces(parts, size)) {
    if (res.destroyed || closing.aborted) break;
    if (trickle && !first) {
      try {
        await sleep(shape.trickleMs, undefined, { signal: closing });
      } catch {
        break;
      }
      if (res.destroyed) break;
    }
    first = false;
    if (!res.write(piece)) await drained(res);
  }
  if (res.destroyed || closing.aborted) res.socket?.destroy();
  else res.end();
}
