/**
 * Response times of a rollup as a histogram of logarithmic buckets (the DDSketch idea): bucket k ≥ 1 holds the
 * times in (γ^(k-1), γ^k] ms and bucket 0 those up to 1 ms. Any percentile read from it is within ALPHA of the
 * exact one (relative; within 1 ms below 1 ms), it stays small (a check's times spread over a few dozen buckets,
 * at most ~330 between 1 ms and 10 minutes), and histograms add up: a day is the sum of its hours, exactly.
 */

/** The relative accuracy of a percentile. */
export const ALPHA = 0.02;
const GAMMA = (1 + ALPHA) / (1 - ALPHA);
const LN_GAMMA = Math.log(GAMMA);

/** SQL for the bucket of a response time in ms (`expression`, double precision); rollups compute it in the store. */
export function bucketSql(expression: string): string {
  return `(CASE WHEN ${expression} <= 1 THEN 0 ELSE ceil(ln(${expression}) / ${LN_GAMMA}) END)::smallint`;
}

/** The value a bucket stands for: the point whose relative distance to either end of the bucket is ALPHA. */
function bucketValue(key: number): number {
  return key <= 0 ? 0 : (2 * GAMMA ** key) / (GAMMA + 1);
}

/**
 * The q-quantile (0 < q ≤ 1) by nearest rank: the value of the bucket holding the ⌈q·n⌉-th smallest time, in ms
 * rounded to 0.1 ms; null for an empty histogram. `keys` ascend and `counts` are parallel to them.
 */
export function percentileOf(keys: readonly number[], counts: readonly number[], q: number): number | null {
  const total = counts.reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const [i, key] of keys.entries()) {
    seen += counts[i] ?? 0;
    if (seen >= rank) return Math.round(bucketValue(key) * 10) / 10;
  }
  return Math.round(bucketValue(keys.at(-1) ?? 0) * 10) / 10;
}
