import { emptyState, type LedgerState } from "./ledger";

/*
 * The shared ledger file's contents: JSON, times in the file's time base (this process's clock
 * plus an offset). What is read is checked field by field, and nothing read may hold this
 * process back further than `MAX_AHEAD_MS`, whatever a damaged file or a clock set back says.
 */

/** The furthest ahead of now a time read from the file may lie. */
export const MAX_AHEAD_MS = 15 * 60_000;
/** The most grants a file may hold (reservations of waiting requests included). */
const MAX_GRANTS = 2_000;

const finite = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

/** The state in `text`, in this process's clock time (`now`); a damaged or foreign file reads as empty. */
export function readLedger(text: string, offsetMs: number, now: number): LedgerState {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return emptyState(); // cut short, or none of ours: start afresh
  }
  if (typeof value !== "object" || value === null) return emptyState();
  const latest = now + MAX_AHEAD_MS;
  const time = (raw: unknown) => (finite(raw) ? Math.min(latest, raw - offsetMs) : 0);
  const grants = Array.isArray(value.grants)
    ? value.grants
        .slice(0, MAX_GRANTS)
        .filter(finite)
        .map((grant) => grant - offsetMs)
        .filter((grant) => grant <= latest)
        .sort((a, b) => a - b)
    : [];
  const throttle = value.throttle as Record<string, unknown> | undefined;
  const learned =
    throttle && finite(throttle.at) && finite(throttle.share) && throttle.share > 0
      ? { at: Math.min(now, throttle.at - offsetMs), share: throttle.share }
      : undefined;
  return { grants, blockedUntil: time(value.blockedUntil), paceAt: time(value.paceAt), throttle: learned };
}

/** The file's text for `state`, or undefined when nothing in it still matters at `now` (the file can go). */
export function writtenLedger(state: LedgerState, offsetMs: number, now: number): string | undefined {
  if (!state.grants.length && state.blockedUntil <= now && state.paceAt <= now && !state.throttle)
    return undefined;
  const shift = (time: number) => time + offsetMs;
  return JSON.stringify({
    grants: state.grants.slice(-MAX_GRANTS).map(shift),
    blockedUntil: shift(state.blockedUntil),
    paceAt: shift(state.paceAt),
    throttle: state.throttle && { at: shift(state.throttle.at), share: state.throttle.share },
  });
}
