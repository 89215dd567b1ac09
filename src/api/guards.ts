import { InvalidInputError, quoted } from "./errors";

/** What an engine passes for a value not known yet (a preview): a uuid, so only this check stops it. */
export const UNKNOWN_VALUE = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a uuid string, any case. */
export function isUuid(value: unknown): value is string {
  return typeof value === "string" && UUID.test(value);
}

/** Each limit must be positive and finite: undici reads a timeout of 0 as none, a timer NaN as no wait. */
export function limitProblems(group: string, limits: object | undefined): string[] {
  if (limits !== undefined && (typeof limits !== "object" || limits === null))
    return [`${group}: must be an object of limits, got ${quoted(limits)}`];
  return Object.entries(limits ?? {})
    .filter(
      ([, value]) =>
        value !== undefined && !(typeof value === "number" && value > 0 && Number.isFinite(value)),
    )
    .map(([name, value]) => `${group}.${name}: must be a positive, finite number, got ${quoted(value)}`);
}

const ENDPOINT_ID_RULE = "1 to 128 characters of letters, digits and . _ : ~ -, not dots alone";

/**
 * Endpoint ids are not specified as uuids. Not dots alone: URL normalisation removes `.` and `..`,
 * and `../` would aim a DELETE at the service itself. No `%`, `/` or `\\`: nothing decodes into a path.
 */
export function isEndpointId(value: unknown): value is string {
  return typeof value === "string" && /^(?!\.+$)[A-Za-z0-9._:~-]{1,128}$/.test(value);
}

/** `value` for a path, or a clear error unless it is a uuid. */
export function uuidSegment(name: string, value: unknown): string {
  return segment(name, value, isUuid, "a uuid (like 3f2a1c9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b)");
}

export function endpointSegment(name: string, value: unknown): string {
  return segment(name, value, isEndpointId, ENDPOINT_ID_RULE);
}

function segment(name: string, value: unknown, valid: (value: unknown) => value is string, rule: string) {
  if (!valid(value)) throw new InvalidInputError(`${name} must be ${rule}, got ${quoted(value)}`);
  // Every character a valid id may hold is allowed as is in a path segment (`:` included).
  return value;
}

/**
 * `template` with each `{name}` replaced by `ids[name]`: refused unless it is a uuid (the endpoint's
 * id its own rule), or when it is the placeholder of a value not known yet: then nothing is sent.
 */
export function pathOf(template: string, ids: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_slot, name: string) => {
    if (ids[name] === UNKNOWN_VALUE)
      throw new InvalidInputError(
        `${name} is not known yet (${UNKNOWN_VALUE} is the placeholder of a value computed later)`,
      );
    return name === "reversePrivateEndpointId"
      ? endpointSegment(name, ids[name])
      : uuidSegment(name, ids[name]);
  });
}

/** A `{name}` segment of an operation's template. */
const PLACEHOLDER = /^\{[A-Za-z]+\}$/;

/**
 * The last line before a request leaves: the URL to send must have exactly the path built from
 * the template, unchanged by normalisation, decoding or re-encoding, and no query or fragment.
 */
export function checkedRequestUrl(apiUrl: string, template: string, path: string): string {
  const base = new URL(apiUrl);
  const basePath = base.pathname === "/" ? "" : base.pathname;
  const url = new URL(`${apiUrl}${path}`);
  const [segments, slots] = [path.split("/"), template.split("/")];
  // The template segment for segment, with an id (uuids fit too) for each placeholder.
  const fits =
    segments.length === slots.length &&
    slots.every((slot, i) => (PLACEHOLDER.test(slot) ? isEndpointId(segments[i]) : slot === segments[i]));
  const unchanged = url.pathname === `${basePath}${path}` && url.origin === base.origin;
  if (!fits || !unchanged || url.search || url.hash) {
    throw new InvalidInputError(
      `Refusing to send: the request path ${quoted(path)} does not match ${template} as sent ` +
        `(${quoted(url.pathname)})`,
    );
  }
  return url.href;
}

/** True for hosts whose traffic never leaves the machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}

/** The API base URL without a trailing slash, or its problems: `http://` only for loopback hosts. */
export function checkApiUrl(text: string): { url: string } | { problems: string[] } {
  const url = URL.parse(text);
  if (!url) {
    const shown = quoted(withoutUserinfo(text));
    return { problems: [`${shown} is not an absolute URL (expected e.g. https://api.example.com)`] };
  }
  const problems: string[] = [];
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    problems.push(`the scheme must be https (got ${url.protocol.replace(":", "")})`);
  } else if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    // Credentials never cross a network in clear.
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
