/**
 * The latency figures the bench lines report (p50, p99, max of measured milliseconds), in
 * one place so that every line ranks its percentiles the same way: the value at rank
 * floor(n·p/100) of the ascending list, never past the last.
 */

export interface LatencyFigures {
  p50: number;
  p99: number;
  max: number;
}

/** The p-th percentile of `sorted` (ascending); NaN for an empty list. */
export const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;

/** p50, p99 and max of `durations` (in any order; the list is left as it is). */
export function latencyFigures(durations: readonly number[]): LatencyFigures {
  const sorted = [...durations].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? NaN };
}
