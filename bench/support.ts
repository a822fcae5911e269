/** What the benchmarks share: the run context an executor gets, and order statistics. */
export { runContext as benchContext } from '../test/support/execution.js';

/** The q-quantile (0..1) of the values, by linear interpolation between the nearest ranks. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const a = sorted[lower] ?? 0;
  const b = sorted[upper] ?? 0;
  return a + (b - a) * (position - lower);
}

export const median = (values: readonly number[]): number => quantile(values, 0.5);

/** A setting's value split at spaces (node flags given as one string); none when absent. */
export function words(value: string | undefined): string[] {
  return (value ?? '').split(/\s+/).filter(Boolean);
}
