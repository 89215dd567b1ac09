// What fault answers carry: the wait headers of a 429 in each form clients meet, the caller's
// credentials echoed back in each form a careless server (or proxy) would use, and bodies a
// client cannot use.
import type { OutgoingHttpHeaders } from "node:http";
import type { EchoForm, Fault, RateLimitHeaderForm } from "../types";

/** The wait headers of a 429 asking for `seconds`, at clock time `nowMs`. */
export function rateLimitWaitHeaders(
  form: RateLimitHeaderForm,
  seconds: number,
  nowMs: number,
): OutgoingHttpHeaders {
  const text = String(seconds);
  switch (form) {
    case "both":
      return { "Retry-After": text, "X-RateLimit-Reset": text };
    case "retry-after-seconds":
      return { "Retry-After": text };
    case "retry-after-date":
      // HTTP dates have whole seconds: round up, so the date is never earlier than asked.
      return { "Retry-After": new Date(Math.ceil((nowMs + seconds * 1000) / 1000) * 1000).toUTCString() };
    case "reset-delta":
      return { "X-RateLimit-Reset": text };
    case "reset-epoch-seconds":
      return { "X-RateLimit-Reset": String(Math.ceil(nowMs / 1000 + seconds)) };
    case "reset-epoch-ms":
      return { "X-RateLimit-Reset": String(Math.ceil(nowMs + seconds * 1000)) };
    case "none":
      return {};
  }
}

/** The credentials in the asked form. `authorization` is the header the caller sent. */
export function echoValue(form: EchoForm, authorization: string, keySecret: string): string {
  switch (form) {
    case "raw":
      return keySecret;
    case "authorization":
      return authorization;
    case "base64":
      return authorization.replace(/^basic\s+/i, "");
    case "json-escaped":
      return JSON.stringify(keySecret).slice(1, -1);
    case "url-encoded":
      return encodeURIComponent(keySecret);
    case "escapes":
      return jsonEscapes(authorization.replace(/^basic\s+/i, ""));
  }
}

/** `value` in JSON escapes: `/` as `\/`, every other character as `\uXXXX`, the hex in mixed case. */
function jsonEscapes(value: string): string {
  const hex = (char: string, at: number) => {
    const code = char.charCodeAt(0).toString(16).padStart(4, "0");
    return `\\u${at % 2 ? code.toUpperCase() : code}`;
  };
  return [...value].map((char, at) => (char === "/" ? "\\/" : at % 3 ? char : hex(char, at))).join("");
}

/** A short text body that is not JSON, as a proxy's error page would be. */
export function shortEchoBody(value: string): string {
  return `upstream refused the request; credentials were ${value}\n`;
}

/**
 * An error message longer than 10 kB with the value after the first 10 kB, eight times at
 * shifting offsets, so that any truncation point from there on cuts through a copy.
 */
export function longEchoMessage(value: string): string {
  const filler = "The upstream service failed to process the request. ".repeat(200).slice(0, 10 * 1024);
  const copies = Array.from({ length: 8 }, (_, index) => `${" ".repeat(index + 1)}credentials=${value}`);
  return `${filler}${copies.join(";")}`;
}

/** Bodies of the malformed-answer faults: one that does not parse, one that parses but does not fit. */
export const MALFORMED_BODIES: Record<NonNullable<Fault["malformed"]>, (requestId: string) => string> = {
  "not-json": () => '{"status":200,"result":',
  "wrong-shape": (requestId) => JSON.stringify({ requestId, result: { id: 7, state: 42 } }),
  deep: (requestId) =>
    `{"status":200,"requestId":"${requestId}","result":{"state":"running","extra":` +
    `${"[".repeat(50_000)}"a\\u0041\\/"${"]".repeat(50_000)}}}`,
};
