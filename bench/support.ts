/** What the benchmarks share: the run context an executor gets, order statistics, and check files. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

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

/** A check file in `dir` of `count` URL checks of `url`, named `${name} 0`, `${name} 1`, …; returns its path. */
export function urlChecksFile(dir: string, name: string, count: number, url: string): string {
  const checks = Array.from({ length: count }, (_, i) => ({
    name: `${name} ${i}`,
    checkType: 'URL',
    request: { url },
  }));
  const file = join(dir, `${name}-${count}.json`);
  writeFileSync(file, JSON.stringify(checks));
  return file;
}
