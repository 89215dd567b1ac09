/*
 * The last start or stop this provider sent to a service, kept in the resource's outputs as
 * `lastCommand`. The API is eventually consistent: for a while after a command, a GET may still
 * show the state the command was sent from. Until a GET has shown the command, or its grace
 * period (`commandGraceMs`) has passed, such a read proves nothing, and the next converge or
 * refresh must not take it at its word (a stale `stopped` right after a start is not a stopped
 * service).
 */
import type { ServiceCommand } from "../api/client";
import { fromWallTime, wallNow, type Clock } from "../api/clock";
import { sentFrom } from "./stateTable";

/** A command the server accepted or may have applied, and when. */
export interface SentCommand {
  command: ServiceCommand;
  /** When, on the provider clock's monotonic timeline: what its age is measured on. */
  atMs: number;
  /** When, by the wall clock (epoch ms): what the outputs store and show. */
  wallMs: number;
  /** A GET has shown it since: a state other than those it is sent from (then such a state is real). */
  seen: boolean;
}

/** A command sent now. */
export function sentNow(command: ServiceCommand, clock: Clock): SentCommand {
  return { command, atMs: clock.now(), wallMs: wallNow(clock), seen: false };
}

/** `lastCommand` as the outputs keep it: empty strings when none is recorded (outputs hold no undefined). */
export interface LastCommandOutput {
  /** `start` or `stop`; `""` when this resource has not sent one. */
  command: ServiceCommand | "";
  /** When the command was accepted, ISO 8601 in UTC with milliseconds, by the provider's wall clock; `""` with no command. */
  sentAt: string;
  /** Whether a GET has shown the command since (a state other than the one it was sent from). */
  seen: boolean;
}

export function lastCommandToOutputs(sent: SentCommand | undefined): LastCommandOutput {
  return sent
    ? { command: sent.command, sentAt: new Date(sent.wallMs).toISOString(), seen: sent.seen }
    : { command: "", sentAt: "", seen: false };
}

/**
 * Reads `lastCommand` from state written by any version: missing, malformed, or a time not in the
 * exact form this provider writes read as no record. The stored wall-clock time becomes an age on
 * the clock's monotonic timeline: one from the future (another machine's clock, a wall clock
 * stepped back since, or a hand edit) counts as sent just now; one from the far past is simply
 * old. `seen` counts only when exactly true. A record is only ever a reason to look again, never
 * to send anything.
 */
export function lastCommandFromOutputs(value: unknown, clock: Clock): SentCommand | undefined {
  if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
  const { command, sentAt, seen } = value as Record<string, unknown>;
  if ((command !== "start" && command !== "stop") || typeof sentAt !== "string") return undefined;
  const wallMs = Date.parse(sentAt);
  if (!Number.isFinite(wallMs) || new Date(wallMs).toISOString() !== sentAt) return undefined;
  return { command, atMs: fromWallTime(clock, wallMs), wallMs, seen: seen === true };
}

/** The record after a GET that showed `state`: seen if that state is not one the command is sent from. */
export function afterRead(sent: SentCommand, state: string): SentCommand {
  return sent.seen || sentFrom(state, sent.command) ? sent : { ...sent, seen: true };
}

/**
 * Whether a GET that showed `state` at `now` may predate `sent`: no GET has shown the command
 * yet, it is less than `graceMs` old, and the state is one the state
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
  return ageMs < graceMs && sentFrom(state, sent.command);
}
