import { UNRECORDED_SOURCES } from '../sessions/results-query.js';
import type { Db } from '../store/db.js';
import { bucketSql } from './histogram.js';
import { DAY_MS, HOUR_MS, periodStart } from './periods.js';

/**
 * An hour is rolled up this long after it ended: a result stamped just before the hour's end may still be
 * committing, and replicas stamp results by their own clocks.
 */
export const ROLLUP_GRACE_MS = 5 * 60_000;

/** The row of rollup_progress: every hour before its done_until is rolled up. */
const PROGRESS = 'check_rollups';

/** The response time of a result row; rows stored before 050 have it only in their record. */
const RESPONSE_TIME = `coalesce(r.response_time, (r.record->>'responseTime')::double precision)`;

/**
 * Rolls up the closed hours not rolled up yet, oldest first, at most `maxHours` of them, and each UTC day whose
 * last hour that closes; returns how many hours it did. Every hour is one transaction holding the progress row,
 * which it advances: replicas running this at once take turns (one skips while another holds the row), and an
 * hour is recomputed from raw results as a whole, so nothing is counted twice.
 */
export async function rollUpClosedHours(db: Db, now: Date, maxHours = 168): Promise<number> {
  const closedUntil = periodStart(new Date(now.getTime() - ROLLUP_GRACE_MS), HOUR_MS);
  await startProgress(db, closedUntil);
  let hours = 0;
  while (hours < maxHours && (await db.transaction((tx) => rollUpNextHour(tx, closedUntil)))) hours += 1;
  return hours;
}

/** Until when rollups are done: raw results before it may go. */
export async function rolledUpUntil(db: Db): Promise<Date | null> {
  const [row] = await db.query<{ done_until: Date }>(
    'SELECT done_until FROM rollup_progress WHERE name = $1',
    [PROGRESS],
  );
  return row ? new Date(row.done_until) : null;
}

/** The first run starts at the hour of the oldest stored result, so a store that had results rolls them all up. */
async function startProgress(db: Db, closedUntil: Date): Promise<void> {
  if (await rolledUpUntil(db)) return;
  const [oldest] = await db.query<{ t: Date | null }>('SELECT min(created_at) AS t FROM check_results');
  const start = oldest?.t ? periodStart(new Date(oldest.t), HOUR_MS) : closedUntil;
  await db.query(
    'INSERT INTO rollup_progress (name, done_until) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING',
    [PROGRESS, start],
  );
}

async function rollUpNextHour(tx: Db, closedUntil: Date): Promise<boolean> {
  const [row] = await tx.query<{ done_until: Date }>(
    'SELECT done_until FROM rollup_progress WHERE name = $1 FOR UPDATE SKIP LOCKED',
    [PROGRESS],
  );
  if (!row) return false;
  const hour = new Date(row.done_until);
  if (hour >= closedUntil) return false;
  let next = new Date(hour.getTime() + HOUR_MS);
  if ((await rollUpHour(tx, hour)) === 0) next = await nextHourWithResults(tx, next, closedUntil);
  const day = periodStart(hour, DAY_MS);
  if (periodStart(next, DAY_MS) > day) await rollUpDay(tx, day);
  await tx.query('UPDATE rollup_progress SET done_until = $2 WHERE name = $1', [PROGRESS, next]);
  return true;
}

/** After an hour without results, the hour of the next result (not after closedUntil): idle hours are skipped. */
async function nextHourWithResults(tx: Db, after: Date, closedUntil: Date): Promise<Date> {
  const [next] = await tx.query<{ t: Date | null }>(
    'SELECT min(created_at) AS t FROM check_results WHERE created_at >= $1',
    [after],
  );
  const hour = next?.t ? periodStart(new Date(next.t), HOUR_MS) : closedUntil;
  return new Date(Math.min(Math.max(hour.getTime(), after.getTime()), closedUntil.getTime()));
}

/**
 * The hourly rollups of one hour, from its raw FINAL results (CANCELLED ones measured nothing and are left out;
 * so are test sessions). Percentiles count the runs that measured a response: PASSED, DEGRADED and FAILED.
 * Returns how many rollups it made.
 */
async function rollUpHour(tx: Db, hour: Date): Promise<number> {
  await tx.query(`DELETE FROM check_rollups WHERE resolution = 'hour' AND period_start = $1`, [hour]);
  const [made] = await tx.query<{ n: number | string }>(
    `WITH histograms AS (${resultHistogramsSql({ period: '$1::timestamptz' })}),
     made AS (
       INSERT INTO check_rollups (account_id, check_id, location, resolution, period_start, count, failures,
                                  degraded, rt_keys, rt_counts)
       SELECT account_id, check_id, location, 'hour', period_start, count, failures, degraded, rt_keys, rt_counts
         FROM histograms
       RETURNING 1
     )
     SELECT count(*) AS n FROM made`,
    [hour, new Date(hour.getTime() + HOUR_MS), UNRECORDED_SOURCES],
  );
  return Number(made?.n ?? 0);
}

/**
 * SQL for what a rollup holds, computed from raw results: per account, check, location and period, the count,
 * failures, degraded and the response-time histogram of FINAL results recorded in [$1, $2) (CANCELLED ones
 * measured nothing and are left out; so are sessions whose run source is in $3::text[]). Percentiles count the
 * runs that measured a response: PASSED, DEGRADED and FAILED. `period` is the SQL of a result's period start
 * (of `r.created_at`); `where` narrows the results further (e.g. to an account, with its own parameters).
 */
export function resultHistogramsSql(options: { period: string; where?: string }): string {
  const key = `CASE WHEN r.status IN ('PASSED', 'DEGRADED', 'FAILED') THEN ${bucketSql(RESPONSE_TIME)} END`;
  return `WITH buckets AS (
       SELECT r.account_id, s.check_id, r.location, ${options.period} AS period_start, ${key} AS key,
              count(*)::integer AS n,
              count(*) FILTER (WHERE r.status IN ('FAILED', 'TIMED_OUT'))::integer AS failures,
              count(*) FILTER (WHERE r.status = 'DEGRADED')::integer AS degraded
         FROM check_results r JOIN check_sessions s ON s.id = r.session_id
        WHERE r.created_at >= $1 AND r.created_at < $2 AND r.result_type = 'FINAL' AND r.status <> 'CANCELLED'
          AND NOT (s.run_source = ANY($3::text[]))${options.where ? ` AND ${options.where}` : ''}
        GROUP BY 1, 2, 3, 4, 5
     )
     SELECT account_id, check_id, location, period_start, sum(n)::integer AS count,
            sum(failures)::integer AS failures, sum(degraded)::integer AS degraded,
            coalesce(array_agg(key ORDER BY key) FILTER (WHERE key IS NOT NULL), '{}') AS rt_keys,
            coalesce(array_agg(n ORDER BY key) FILTER (WHERE key IS NOT NULL), '{}') AS rt_counts
       FROM buckets GROUP BY account_id, check_id, location, period_start`;
}

/** The daily rollups of one UTC day: the sums of its hourly rollups (histograms add up bucket by bucket). */
async function rollUpDay(tx: Db, day: Date): Promise<void> {
  await tx.query(`DELETE FROM check_rollups WHERE resolution = 'day' AND period_start = $1`, [day]);
  await tx.query(
    `WITH hours AS (
       SELECT * FROM check_rollups WHERE resolution = 'hour' AND period_start >= $1 AND period_start < $2
     ), totals AS (
       SELECT account_id, check_id, location, sum(count)::integer AS count,
              sum(failures)::integer AS failures, sum(degraded)::integer AS degraded
         FROM hours GROUP BY 1, 2, 3
     ), buckets AS (
       SELECT account_id, check_id, location, u.key, sum(u.n)::integer AS n
         FROM hours, unnest(rt_keys, rt_counts) AS u(key, n) GROUP BY 1, 2, 3, 4
     ), histograms AS (
       SELECT account_id, check_id, location, array_agg(key ORDER BY key) AS rt_keys,
              array_agg(n ORDER BY key) AS rt_counts
         FROM buckets GROUP BY 1, 2, 3
     )
     INSERT INTO check_rollups (account_id, check_id, location, resolution, period_start, count, failures,
                                degraded, rt_keys, rt_counts)
     SELECT t.account_id, t.check_id, t.location, 'day', $1, t.count, t.failures, t.degraded,
            coalesce(h.rt_keys, '{}'), coalesce(h.rt_counts, '{}')
       FROM totals t LEFT JOIN histograms h USING (account_id, check_id, location)`,
    [day, new Date(day.getTime() + DAY_MS)],
  );
}
