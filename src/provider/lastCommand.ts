import { isServiceCommand } from "../api/client";
import type { ServiceCommand } from "../api/options";
import { fromWallTime, wallNow, type Clock } from "../api/clock";
import { sentFrom } from "./stateTable";

/*
 * The last start or stop sent, kept in the outputs as `lastCommand`: right after a command, a GET may
 * still show the state it was sent from (the API is eventually consistent), and such a read proves nothing.
 */

/** A command the server accepted or may have applied, and when. */
export interface SentCommand {
  command: ServiceCommand;
  /** On the clock's monotonic timeline: what its age is measured on. */
  atMs: number;
  /** By the wall clock (epoch ms): what the outputs store. */
  wallMs: number;
  /** A GET has shown a state other than those it is sent from. */
  seen: boolean;
}

export function sentNow(command: ServiceCommand, clock: Clock): SentCommand {
  return { command, atMs: clock.now(), wallMs: wallNow(clock), seen: false };
}

/** `lastCommand` as the outputs keep it. */
export interface LastCommandOutput {
  /** `start` or `stop`; `""` when this resource has not sent one. */
  command: ServiceCommand | "";
  /** When the command was accepted, ISO 8601 in UTC, by the provider's wall clock; `""` with no command. */
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
 * `lastCommand` from state of any version: anything not in the exact form written here is no record,
 * and a future time (another clock, a hand edit) is now. A record is only a reason to look again.
 */
export function lastCommandFromOutputs(value: unknown, clock: Clock): SentCommand | undefined {
  if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
  const { command, sentAt, seen } = value as Record<string, unknown>;
  if (!isServiceCommand(command) || typeof sentAt !== "string") return undefined;
  const wallMs = Date.parse(sentAt);
  if (!Number.isFinite(wallMs) || new Date(wallMs).toISOString() !== sentAt) return undefined;
  return { command, atMs: fromWallTime(clock, wallMs), wallMs, seen: seen === true };
}

export function afterRead(sent: SentCommand, state: string): SentCommand {
  return sent.seen || sentFrom(state, sent.command) ? sent : { ...sent, seen: true };
}

/** Whether a GET that showed `state` at `now` may predate `sent`. */
export function mayPredate(state: string, sent: SentCommand | undefined, now: number, graceMs: number) {
  return !!sent && !sent.seen && now - sent.atMs < graceMs && sentFrom(state, sent.command);
}
