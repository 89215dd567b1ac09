/** What replaces a credential in anything kept: an error, a log line, an output or state. */
export const REDACTED = "[REDACTED]";

/** Secrets shorter than this are not searched for: they would blank out ordinary words. */
const MIN_SECRET_LENGTH = 6;

/** The `Authorization` header value for a key pair. */
export function basicAuthorization(keyId: string, keySecret: string): string {
  return `Basic ${Buffer.from(`${keyId}:${keySecret}`).toString("base64")}`;
}

/** Every form of the key secret and of its Basic token that a server could echo back in text. */
export function secretForms(keyId: string, keySecret: string): string[] {
  const token = basicAuthorization(keyId, keySecret).slice("Basic ".length);
  const forms = new Set<string>();
  for (const value of [keySecret, token, Buffer.from(keySecret).toString("base64")]) {
    forms.add(value);
    forms.add(JSON.stringify(value).slice(1, -1));
    forms.add(encodeURIComponent(value));
    forms.add(new URLSearchParams({ v: value }).toString().slice(2));
    forms.add(Buffer.from(value).toString("base64url"));
  }
  // Longest first, so a form that contains another is replaced whole.
  return [...forms].filter((form) => form.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
}

/** An Authorization header value in text; the token's JSON escapes included, so no tail of it survives. */
const AUTHORIZATION_VALUE =
  /(authorization["']?\s*[:=]\s*["']?)(basic|bearer)\s+(?:[A-Za-z0-9+/=._~%-]|\\\/|\\u[0-9a-fA-F]{4})+/gi;

/**
 * `text` with every form of the secret replaced. Text may carry JSON escapes that spell a form
 * (`\/`, `\u0041`): when decoding them reveals one, the decoded text is returned, redacted.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  const raw = redactForms(text, secrets);
  if (!raw.includes("\\")) return raw;
  const decoded = raw.replace(JSON_ESCAPE, (escape) => JSON.parse(`"${escape}"`) as string);
  const redacted = redactForms(decoded, secrets);
  return redacted === decoded ? raw : redacted;
}

const JSON_ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/g;

function redactForms(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text.replace(AUTHORIZATION_VALUE, `$1$2 ${REDACTED}`);
  for (const secret of secrets)
    if (secret && secret.length >= MIN_SECRET_LENGTH) out = out.replaceAll(secret, REDACTED);
  return out;
}

/** A parsed JSON body redacted; walked only when its text has an escape, an Authorization word or a form. */
export function redactParsed(text: string, parsed: unknown, secrets: readonly string[]): unknown {
  const mayHold =
    text.includes("\\") || /authorization/i.test(text) || secrets.some((form) => text.includes(form));
  return mayHold ? redactDeep(parsed, secrets) : parsed;
}

/** Every string of a parsed JSON value redacted, keys included. Recursive: callers bound the depth first. */
export function redactDeep(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === "string") return redactSecrets(value, secrets);
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, secrets));
  if (value && typeof value === "object") {
    // `Object.fromEntries` keeps a `__proto__` key a field.
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [redactSecrets(key, secrets), redactDeep(item, secrets)]),
    );
  }
  return value;
}

/** Cuts text to `max` characters, saying how much was left out. Redact first, then truncate. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/** Names that look like a credential: the spec's `encryptionKey`, and fields the API adds later. */
const CREDENTIAL_NAME = /password|passwd|secret|token|credential|private_?key|api_?key|encryption_?key/i;

/** Whether a credential-like name is set, at any depth (iterative: network data). */
export function holdsSecret(service: unknown): boolean {
  const pending: { value: unknown; name: string }[] = [{ value: service, name: "" }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value, name } = next;
    if (value === null || value === undefined || value === "") continue;
    if (typeof value === "object") {
      const entries = Array.isArray(value)
        ? value.map((item) => [name, item] as const)
        : Object.entries(value);
      for (const [key, item] of entries) pending.push({ value: item, name: key });
    } else if (CREDENTIAL_NAME.test(name)) return true;
  }
  return false;
}
