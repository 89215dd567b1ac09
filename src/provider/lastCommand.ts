/*
 * The last start or stop this provider sent to a service, kept in the resource's outputs as
 * `lastCommand`. The API is eventually consistent: for a while after a command, a GET may still
 * show the state the command was sent from. Until a GET has shown the command, or its grace
 * period (`commandGraceMs`) has passed, such a read proves nothing, and the next converge or
 * refresh must not take it at its word (a stale `stopped` right after a start is not a stopped
 * service).
 */
import type { ServiceCommand } from "../api/client";
import { sentFrom } from "./stateTable";

/** A command the server accepted or may have applied, and when, by the provider's clock (epoch ms). */
export interface SentCommand {
  command: ServiceCommand;
  atMs: number;
  /** A GET has shown it since: a state other than those it is sent from (then such a state is real). */
  seen: boolean;
}

/** `lastCommand` as the outputs keep it: empty strings when none is recorded (outputs hold no undefined). */
export interface LastCommandOutput {
  /** `start` or `stop`; `""` when this resource has not sent one. */
  command: ServiceCommand | "";
  /** When the command was accepted, ISO 8601 in UTC with milliseconds, by the provider's clock; `""` with no command. */
  sentAt: string;
  /** Whether a GET has shown the command since (a state other than the one it was sent from). */
  seen: boolean;
}

export function lastCommandToOutputs(sent: SentCommand | undefined): LastCommandOutput {
  return sent
    ? { command: sent.command, sentAt: new Date(sent.atMs).toISOString(), seen: sent.seen }
    : { command: "", sentAt: "", seen: false };
}

/**
 * Reads `lastCommand` from state written by any version: missing, malformed, a time not in the
 * exact form this provider writes, or a time later than `now` (another machine's clock, or a hand
 * edit) read as no record. `seen` counts only when exactly true. A record is only ever a reason to
 * look again, never to send anything.
 */
export function lastCommandFromOutputs(value: unknown, now: number): SentCommand | undefined {
  if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
  const { command, sentAt, seen } = value as Record<string, unknown>;
  if ((command !== "start" && command !== "stop") || typeof sentAt !== "string") return undefined;
  const atMs = Date.parse(sentAt);
  if (!Number.isFinite(atMs) || new Date(atMs).toISOString() !== sentAt || atMs > now) return undefined;
  return { command, atMs, seen: seen === true };
}

/** The record after a GET that showed `state`: seen if that state is not one the command is sent from. */
export function afterRead(sent: SentCommand, state: string): SentCommand {
  return sent.seen || sentFrom(state, sent.command) ? sent : { ...sent, seen: true };
}

/**
 * Whether a GET that showed `state` at `now` may predate `sent`: no GET has shown the command
 * yet, it is less than `graceMs` old (and not from the future), and the state is one the state
 * table sends that command from.
 */
export function mayPredate(
  state: string,
  sent: SentCommand | undefined,
  now: number,
  graceMs: number,
): boolean {
  if (!sent || sent.seen) return false;
  const ageMs = now - sent.atMs;
  return ageMs >= 0 && ageMs < graceMs && sentFrom(state, sent.command);
}
