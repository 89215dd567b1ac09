// HTTP Basic authentication against the one key pair the emulator accepts.
import { createHash, timingSafeEqual } from "node:crypto";

export interface KeyPair {
  keyId: string;
  keySecret: string;
}

/** The key id of a request whose credentials match, or undefined. */
export function authenticate(authorization: string | undefined, expected: KeyPair): string | undefined {
  const match = /^basic\s+(\S+)\s*$/i.exec(authorization ?? "");
  if (match === null) return undefined;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const separator = decoded.indexOf(":");
  if (separator < 0) return undefined;
  const keyId = decoded.slice(0, separator);
  const keySecret = decoded.slice(separator + 1);
  // Constant-time comparison of equal-length digests: timing tells nothing about the secret.
  const keyIdMatches = sameDigest(keyId, expected.keyId);
  const keySecretMatches = sameDigest(keySecret, expected.keySecret);
  return keyIdMatches && keySecretMatches ? keyId : undefined;
}

function sameDigest(actual: string, expected: string): boolean {
  const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();
  return timingSafeEqual(digest(actual), digest(expected));
}
