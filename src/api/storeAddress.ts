import { budgetHash, type RateLimit } from "./rateLimit";

/*
 * The address of a shared budget store, checked before anything connects, and the names its entries
 * take. Credentials stay in `url` alone: every message names the store by `shown`.
 */

export interface StoreAddress {
  /** The full URL, credentials included: handed to the Redis client, never to a message. */
  url: string;
  /** The URL without user and password, for messages. */
  shown: string;
  /** The password (or `undefined`), so that any text leaving the process can be searched for it. */
  password: string | undefined;
}

/** The address in `raw`, or the problems with it (none of which repeats the credentials). */
export function parseStoreAddress(raw: string): StoreAddress | { problems: string[] } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { problems: ["not a URL (expected redis://[user:password@]host:port[/db] or rediss://...)"] };
  }
  const problems: string[] = [];
  if (url.protocol !== "redis:" && url.protocol !== "rediss:")
    problems.push(`the scheme must be redis: or rediss:, got ${JSON.stringify(url.protocol)}`);
  if (!url.hostname) problems.push("no host");
  if (url.pathname !== "" && url.pathname !== "/" && !/^\/\d{1,2}$/.test(url.pathname))
    problems.push("the path may only name a database number (/0 to /99)");
  if (url.search || url.hash) problems.push("no query or fragment is read: leave them out");
  if (problems.length) return { problems };
  const shown = `${url.protocol}//${url.host}${url.pathname === "/" ? "" : url.pathname}`;
  const password = url.password ? decodeURIComponent(url.password) : undefined;
  return { url: raw, shown, password };
}

/** The prefix of one budget's entries, in braces so that a Redis cluster keeps them on one node. */
export function storeKeyPrefix(apiUrl: string, keyId: string, limit: RateLimit): string {
  return `dbcloud:budget:v1:{${budgetHash(apiUrl, keyId, limit)}}`;
}
