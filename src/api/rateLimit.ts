import { createHash } from "node:crypto";
import { ConfigurationError, quoted } from "./errors";

/** A number of requests per window, e.g. the real service's 10 per 10 s per key. */
export interface RateLimit {
  /** Requests allowed in one window. */
  requests: number;
  /** The window, in ms. */
  windowMs: number;
}

/** The real service's limit: 10 requests per 10 s per key. */
export const DEFAULT_RATE_LIMIT: Readonly<RateLimit> = Object.freeze({ requests: 10, windowMs: 10_000 });

/** Parses `10/10s`, `5/1m`, `100/500ms`, or `off` (no client-side budget). */
export function parseRateLimit(text: string): RateLimit | false {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === "off") return false;
  const notALimit = (why: string) => new ConfigurationError([`${quoted(text)} is not a rate limit: ${why}`]);
  const match = /^(\d+)\s*\/\s*(\d+(?:\.\d+)?)?\s*(ms|s|m)$/.exec(trimmed);
  if (!match) throw notALimit(`write it as <requests>/<duration>, e.g. "10/10s", "5/1m" or "off"`);
  const requests = Number(match[1]);
  const windowMs = Number(match[2] ?? 1) * { ms: 1, s: 1000, m: 60_000 }[match[3] as "ms" | "s" | "m"];
  if (requests < 1 || windowMs <= 0) throw notALimit("it needs at least 1 request per a positive duration");
  return { requests, windowMs };
}

/** The name of one key's budget at one API and limit (file, store, table): a hash, never key material. */
export function budgetHash(apiUrl: string, keyId: string, limit: RateLimit): string {
  const text = `${apiUrl}\n${keyId}\n${limit.requests}/${limit.windowMs}`;
  return createHash("sha256").update(text).digest("hex").slice(0, 32);
}
