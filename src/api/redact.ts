/**
 * Removes secrets from text that may reach an error message, a log line or state.
 * Both the raw secret and the Basic token built from it are replaced, as are any
 * `Authorization` header values that slipped into a string (octokit does the same).
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text.replace(
    /(authorization["']?\s*[:=]\s*["']?)(basic|bearer)\s+[A-Za-z0-9+/=._-]+/gi,
    "$1$2 [REDACTED]",
  );
  for (const secret of secrets) {
    // Very short values would blank out ordinary words; real secrets are long.
    if (secret && secret.length >= 6) out = out.split(secret).join("[REDACTED]");
  }
  return out;
}

/** The `Authorization` header value for a key pair. */
export function basicAuthorization(keyId: string, keySecret: string): string {
  return `Basic ${Buffer.from(`${keyId}:${keySecret}`, "utf8").toString("base64")}`;
}
