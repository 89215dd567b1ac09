/** Medians and spread for the benchmark's tables: the machines are shared and noisy. */

export interface Spread {
  median: number;
  /** 25th and 75th percentiles. */
  p25: number;
  p75: number;
  n: number;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))];
}

export function spread(values: number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    median: quantile(sorted, 0.5),
    p25: quantile(sorted, 0.25),
    p75: quantile(sorted, 0.75),
    n: values.length,
  };
}

export function formatSpread(s: Spread, digits = 1): string {
  return `${s.median.toFixed(digits)} [${s.p25.toFixed(digits)}-${s.p75.toFixed(digits)}]`;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
