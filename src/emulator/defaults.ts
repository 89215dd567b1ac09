import { randomBytes } from "node:crypto";
import type { TransitionTimes } from "./types";

/** Transition times when the caller gives none: a few seconds, like a small real service feels. */
export const DEFAULT_TRANSITIONS: Readonly<TransitionTimes> = Object.freeze({
  starting: 2000,
  stopping: 2000,
  awaking: 1000,
  provisioning: 3000,
  terminating: 2000,
  softdeleting: 2000,
});

export const DEFAULT_HOST = "127.0.0.1";

export function generateKeyId(): string {
  return `emu-key-${randomBytes(4).toString("hex")}`;
}

/** 32 random bytes: 43 base64url characters, safe inside a Basic auth pair and a shell line. */
export function generateKeySecret(): string {
  return randomBytes(32).toString("base64url");
}
