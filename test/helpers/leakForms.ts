/**
 * The forms a key secret and its Basic token take where a leak would show them: raw,
 * JSON-escaped, URL-encoded, the secret in base64, and both in base64url. For tests that search output and errors
 * for the secret; kept apart from src/api/redact.ts so the redaction is not checked against its
 * own list.
 */
/**
 * `text` with its JSON escapes decoded (`\/`, `\uXXXX`, ...), where a secret spelled in escapes
 * shows; written apart from the library's own decoder.
 */
export function unescaped(text: string): string {
  return text.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_escape, code: string) => {
    if (code.length === 5) return String.fromCharCode(parseInt(code.slice(1), 16));
    return ({ b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" } as Record<string, string>)[code] ?? code;
  });
}

export function leakForms(secret: string, token: string): string[] {
  return [
    secret,
    token,
    JSON.stringify(secret).slice(1, -1),
    encodeURIComponent(secret),
    encodeURIComponent(token),
    Buffer.from(secret).toString("base64"),
    Buffer.from(secret).toString("base64url"),
    Buffer.from(token).toString("base64url"),
  ];
}
