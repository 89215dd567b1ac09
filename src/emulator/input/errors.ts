// Bad input to the emulator (seed data, faults, control requests) is reported once, with every
// problem listed and named by its path, instead of failing on the first or silently defaulting.

export class EmulatorInputError extends Error {
  override readonly name = "EmulatorInputError";
  constructor(
    readonly issues: string[],
    /** HTTP status the control surface answers with. */
    readonly status = 400,
  ) {
    super(issues.join("; "));
  }
}

/** Collects problems found while reading an untrusted value. */
export class IssueList {
  readonly issues: string[] = [];

  add(path: string, problem: string): void {
    this.issues.push(`${path} ${problem}`);
  }

  /** Throws every collected problem at once. */
  throwIfAny(): void {
    if (this.issues.length > 0) throw new EmulatorInputError(this.issues);
  }
}

/** Runs a reader that reports into an IssueList, and throws what it reported; else its value is defined. */
export function readOrThrow<T>(read: (issues: IssueList) => T | undefined): T {
  const issues = new IssueList();
  const value = read(issues);
  issues.throwIfAny();
  return value as T;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function formatValue(value: unknown): string {
  if (value === undefined) return "undefined";
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  return JSON.stringify(value);
}
