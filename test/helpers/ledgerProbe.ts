/**
 * Run as a child process (as another user when the test runs as root): for each case folder in
 * argv[2] (JSON), uses a rate budget shared through a file under that folder, as `sharedBudget`
 * does, with a deadline, and prints one `RESULT {json}` line: how each call ended, whether the
 * budget gave up the file, and what it said.
 */
import { FileLedger, ledgerPath } from "../../src/api/fileLedger";
import { BudgetDeadlineError, RateBudget } from "../../src/api/rateBudget";
import { systemClock } from "../../src/api/clock";

export interface ProbeCase {
  name: string;
  /** The folder standing in for the temp folder. */
  base: string;
  /** Ms from the call to its deadline. */
  deadlineMs: number;
  /** How many calls to make. */
  calls: number;
}

export interface ProbeResult {
  name: string;
  path: string;
  /** Per call: "granted", "deadline" (BudgetDeadlineError) or the error's message. */
  outcomes: string[];
  local: boolean;
  warnings: string[];
}

export const PROBE_URL = "https://api.example.test";
export const PROBE_KEY = "probe-key";
export const PROBE_LIMIT = { requests: 1_000, windowMs: 60_000 };

async function probe(one: ProbeCase): Promise<ProbeResult> {
  const limit = PROBE_LIMIT;
  const path = ledgerPath(PROBE_URL, PROBE_KEY, limit, one.base);
  const warnings: string[] = [];
  const ledger = new FileLedger(path, { limit, warn: (message) => warnings.push(message) });
  const budget = new RateBudget(limit, systemClock, 0, ledger);
  const outcomes: string[] = [];
  for (let i = 0; i < one.calls; i++) {
    const deadline = systemClock.now() + one.deadlineMs;
    try {
      await budget.take(deadline);
      outcomes.push("granted");
    } catch (error) {
      outcomes.push(error instanceof BudgetDeadlineError ? "deadline" : String(error));
    }
  }
  // The ledger warns exactly when it gives the file up for memory.
  return { name: one.name, path, outcomes, local: warnings.length > 0, warnings };
}

async function main(): Promise<void> {
  const cases = JSON.parse(process.argv[2] ?? "[]") as ProbeCase[];
  const results: ProbeResult[] = [];
  for (const one of cases) results.push(await probe(one));
  process.stdout.write(`RESULT ${JSON.stringify(results)}\n`);
}

if (require.main === module) void main();
