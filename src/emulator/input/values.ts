// Readers of single untrusted values, shared by the seed, fault and options readers. They report
// into an IssueList under the given path instead of throwing, so that a caller can list every problem.
import { formatValue, type IssueList } from "./errors";
import { isUuid } from "../model/uuid";

export function reportUnknownKeys(
  value: Record<string, unknown>,
  known: ReadonlySet<string>,
  path: string,
  issues: IssueList,
): void {
  for (const key of Object.keys(value)) {
    if (!known.has(key)) issues.add(path === "" ? key : `${path}.${key}`, "is not a known field");
  }
}

export function readUuid(value: unknown, path: string, issues: IssueList): string | undefined {
  if (typeof value === "string" && isUuid(value)) return value;
  issues.add(path, `must be a uuid, got ${formatValue(value)}`);
  return undefined;
}

export function readNonEmptyString(value: unknown, path: string, issues: IssueList): string | undefined {
  if (typeof value === "string" && value.length > 0) return value;
  issues.add(path, `must be a non-empty string, got ${formatValue(value)}`);
  return undefined;
}

/** A duration or count in milliseconds: finite and not negative. */
export function readMilliseconds(value: unknown, path: string, issues: IssueList): number | undefined {
  if (typeof value === "number" && Number.isFinite(value) && value >= 0) return value;
  issues.add(path, `must be a number of milliseconds >= 0, got ${formatValue(value)}`);
  return undefined;
}

/** The key id of a Basic auth pair: a colon in it would split the credentials in the wrong place. */
export function readKeyId(value: unknown, path: string, issues: IssueList): string | undefined {
  if (typeof value === "string" && value.length > 0 && !value.includes(":")) return value;
  issues.add(path, `must be a non-empty string without ":", got ${formatValue(value)}`);
  return undefined;
}
