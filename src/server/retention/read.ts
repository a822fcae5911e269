import type { Db } from '../store/db.js';
import { iso } from '../store/rows.js';
import { percentileOf } from './histogram.js';

export type Resolution = 'hour' | 'day';

/** One rollup as the API shows it. */
export interface RollupRecord {
  periodStart: string;
  location: string;
  count: number;
  failures: number;
  degraded: number;
  /** Milliseconds, within 2 % of the exact percentile; null when no result in the period measured a response. */
  responseTime: { p50: number; p95: number; p99: number } | null;
}

interface Row {
  period_start: Date;
  location: string;
  count: number;
  failures: number;
  degraded: number;
  rt_keys: number[];
  rt_counts: number[];
}

/** The rollups of a check whose period starts in [from, to), oldest first, then by location. */
export async function listRollups(
  db: Db,
  query: {
    accountId: string;
    checkId: string;
    resolution: Resolution;
    from: Date;
    to: Date;
    location?: string;
  },
): Promise<RollupRecord[]> {
  const rows = await db.query<Row>(
    `SELECT period_start, location, count, failures, degraded, rt_keys, rt_counts FROM check_rollups
      WHERE account_id = $1 AND check_id = $2 AND resolution = $3 AND period_start >= $4 AND period_start < $5
        AND ($6::text IS NULL OR location = $6)
      ORDER BY period_start, location`,
    [query.accountId, query.checkId, query.resolution, query.from, query.to, query.location ?? null],
  );
  return rows.map((row) => {
    const at = (q: number) => percentileOf(row.rt_keys, row.rt_counts, q);
    const p50 = at(0.5);
    const p95 = at(0.95);
    const p99 = at(0.99);
    return {
      periodStart: iso(row.period_start),
      location: row.location,
      count: row.count,
      failures: row.failures,
      degraded: row.degraded,
      responseTime: p50 === null || p95 === null || p99 === null ? null : { p50, p95, p99 },
    };
  });
}
