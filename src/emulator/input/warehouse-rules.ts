// Reading warehouse rules from startEmulator options, the control surface and the CLI's seed file.
import { formatValue, type IssueList, isPlainObject } from "./errors";
import { reportUnknownKeys } from "./values";
import type { WarehouseRefusal, WarehouseRule, WarehouseRules } from "../types";

const RULES: readonly WarehouseRule[] = ["primaryStop", "secondaryStart"];

function readRefusal(value: unknown, path: string, issues: IssueList): WarehouseRefusal | false | undefined {
  if (value === false) return false;
  if (!isPlainObject(value)) {
    issues.add(path, `must be false or {"status": 4xx, "message": string}, got ${formatValue(value)}`);
    return undefined;
  }
  reportUnknownKeys(value, new Set(["status", "message"]), path, issues);
  const { status, message } = value;
  // A refusal applies nothing, which is what a 4xx says; a 5xx would invite a blind retry.
  const statusOk = typeof status === "number" && Number.isInteger(status) && status >= 400 && status <= 499;
  if (!statusOk)
    issues.add(`${path}.status`, `must be an integer from 400 to 499, got ${formatValue(status)}`);
  const messageOk = typeof message === "string" && message.length > 0;
  if (!messageOk) issues.add(`${path}.message`, `must be a non-empty string, got ${formatValue(message)}`);
  return statusOk && messageOk ? { status, message } : undefined;
}

export function readWarehouseRules(
  value: unknown,
  path: string,
  issues: IssueList,
): Partial<WarehouseRules> | undefined {
  if (!isPlainObject(value)) {
    issues.add(
      path,
      `must be an object with "primaryStop" and/or "secondaryStart", got ${formatValue(value)}`,
    );
    return undefined;
  }
  reportUnknownKeys(value, new Set(RULES), path, issues);
  const rules: Partial<WarehouseRules> = {};
  for (const rule of RULES) {
    if (value[rule] === undefined) continue;
    const refusal = readRefusal(value[rule], `${path}.${rule}`, issues);
    if (refusal !== undefined) rules[rule] = refusal;
  }
  return rules;
}
