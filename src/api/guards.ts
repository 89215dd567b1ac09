/** Input guards shared by the client and the resources' checks. */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === "string" && UUID.test(value);
}

/**
 * Reverse private endpoint ids are not specified as uuids: 1 to 128 of letters, digits and
 * `. _ : ~ -`, and not made of dots alone. `.` and `..` are dot segments that URL normalisation
 * removes: `../` would aim a DELETE at the service itself. No `%`, `/` or `\\`, so nothing can be
 * decoded or re-encoded into another path.
 */
export function isEndpointId(value: unknown): value is string {
  return typeof value === "string" && /^[A-Za-z0-9._:~-]{1,128}$/.test(value) && !/^\.+$/.test(value);
}

/** Throws a clear error unless `value` is a uuid; returns it percent-encoded for a path. */
export function uuidSegment(name: string, value: unknown): string {
  if (!isUuid(value)) {
    throw new TypeError(
      `${name} must be a uuid (like 3f2a1c9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b), got ${JSON.stringify(value)}`,
    );
  }
  return encodeURIComponent(value);
}

export function endpointSegment(name: string, value: unknown): string {
  if (!isEndpointId(value)) {
    throw new TypeError(
      `${name} must be 1 to 128 characters of letters, digits and . _ : ~ -, not dots alone, got ${JSON.stringify(value)}`,
    );
  }
  return encodeURIComponent(value);
}

/** One path segment of an operation's template: what a guarded id encodes to, never a dot segment. */
const TEMPLATE_SEGMENT = "(?!\\.+(?:/|$))[A-Za-z0-9._:~-]{1,128}";

/** Each operation's template as a pattern, built once: there are three operations. */
const templatePatterns = new Map<string, RegExp>();

function templatePattern(template: string): RegExp {
  return (
    templatePatterns.get(template) ??
    remember(
      templatePatterns,
      template,
      new RegExp(`^${template.replace(/\{[A-Za-z]+\}/g, TEMPLATE_SEGMENT)}$`),
    )
  );
}

/** The base URL's origin and path (no trailing slash), parsed once per base URL. */
const bases = new Map<string, { origin: string; pathname: string }>();

function baseOf(apiUrl: string): { origin: string; pathname: string } {
  return bases.get(apiUrl) ?? parseBase(apiUrl);
}

function parseBase(apiUrl: string): { origin: string; pathname: string } {
  const url = new URL(apiUrl);
  // The base URL was checked (checkApiUrl): it has no trailing slash, so only a root path's "/" goes.
  const base = { origin: url.origin, pathname: url.pathname === "/" ? "" : url.pathname };
  // A process talks to a handful of base URLs; the bound only keeps hostile callers from growing it.
  if (bases.size >= 64) bases.clear();
  return remember(bases, apiUrl, base);
}

/** Puts `value` in `cache` under `key`; returns it. */
function remember<K, V>(cache: Map<K, V>, key: K, value: V): V {
  // Stryker disable next-line CallExpression: without it each call builds the same value again (a cache): equivalent
  cache.set(key, value);
  return value;
}

/**
 * The last line before a request leaves: the URL about to be sent must have exactly the path
 * built from the operation's template (`/v1/organizations/{organizationId}/...`), with no
 * normalisation, decoding or re-encoding having changed it, and no query or fragment. Returns
 * the URL to send; throws, sending nothing, on any difference.
 */
export function checkedRequestUrl(apiUrl: string, template: string, path: string): string {
  return checkedRequestTarget(apiUrl, template, path).href;
}

/** A request's checked URL, and its origin and path as a dispatcher takes them. */
export interface RequestTarget {
  href: string;
  origin: string;
  /** The URL's path as it will be sent (it has no query: a URL with one is refused). */
  pathname: string;
}

/** `checkedRequestUrl`, with the origin and path of the URL it returns. */
export function checkedRequestTarget(apiUrl: string, template: string, path: string): RequestTarget {
  // A URL once checked is checked: a poll asks for the same one every few seconds, and parsing it
  // again cost about a tenth of a loopback read's overhead (`bench/overhead.ts`, P1).
  const key = `${template}\n${apiUrl}\n${path}`;
  return checkedUrls.get(key) ?? checkRequestUrl(key, apiUrl, template, path);
}

/**
 * URLs that passed `checkRequestUrl`, by template, base URL and path. The client's base URL is
 * checked (it holds no line break) and its paths are built from checked segments, so no two
 * different pairs of base and path share a key.
 */
const checkedUrls = new Map<string, RequestTarget>();

function checkRequestUrl(key: string, apiUrl: string, template: string, path: string): RequestTarget {
  const pattern = templatePattern(template);
  const base = baseOf(apiUrl);
  const url = new URL(`${apiUrl}${path}`);
  const expected = `${base.pathname}${path}`;
  if (
    !pattern.test(path) ||
    // Stryker disable next-line ConditionalExpression: a path that fits its template has no dot segment, escape or separator that parsing could change: equivalent, kept as defence in depth
    url.pathname !== expected ||
    url.search ||
    url.hash ||
    // Stryker disable next-line ConditionalExpression: a checked base URL followed by such a path keeps its origin: equivalent, kept as defence in depth
    url.origin !== base.origin
  ) {
    throw new TypeError(
      `Refusing to send: the request path ${JSON.stringify(path)} does not match ${template} as sent ` +
        `(${JSON.stringify(url.pathname)})`,
    );
  }
  // A process asks for a handful of services; the bound only keeps a long-lived one from growing it.
  if (checkedUrls.size >= 1024) checkedUrls.clear();
  // Frozen: every later request for this URL gets the same object.
  return remember(
    checkedUrls,
    key,
    Object.freeze({ href: url.href, origin: url.origin, pathname: url.pathname }),
  );
}

/** True for hosts whose traffic never leaves the machine. */
export function isLoopbackHost(hostname: string): boolean {
  // Stryker disable next-line Regex: a URL's hostname has brackets only around an IPv6 address, one at each end, so either anchor alone finds the same ones: equivalent
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Validates the API base URL; returns it without a trailing slash, or a list of problems.
 * `http://` is refused unless the host is loopback: credentials never cross a network in clear.
 */
export function checkApiUrl(text: string): { url: string } | { problems: string[] } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return {
      problems: [
        `${JSON.stringify(withoutUserinfo(text))} is not an absolute URL (expected e.g. https://api.example.com)`,
      ],
    };
  }
  const problems: string[] = [];
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    problems.push(`the scheme must be https (got ${url.protocol.replace(":", "")})`);
  } else if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    problems.push(
      `http:// is only allowed for a loopback host (localhost, 127.0.0.1, ::1); use https://${url.host}`,
    );
  }
  if (url.username || url.password)
    problems.push("the URL must not contain credentials; set the API key instead");
  if (url.search || url.hash) problems.push("the URL must not have a query or fragment");
  const path = url.pathname.replace(/\/+$/, "");
  if (/\/v1$/.test(path)) problems.push("give the base URL without the trailing /v1 (the client adds it)");
  if (problems.length) return { problems };
  return { url: `${url.origin}${path}` };
}

/** A URL's text with any `user:password@` part masked, for messages. */
export function withoutUserinfo(text: string): string {
  return text.replace(/(^|\/\/)([^/?#]*)@/, "$1***@");
}
