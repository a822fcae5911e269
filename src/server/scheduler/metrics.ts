import type { Db } from '../store/db.js';

/** How long location metrics are kept: the metrics route answers at most 15 days back. */
export const METRICS_RETENTION_MS = 15 * 86_400_000;

export function minuteOf(now: Date): Date {
  return new Date(Math.floor(now.getTime() / 60_000) * 60_000);
}

/**
 * Samples every location's queue once for the minute of `now`: queueSize (runs due and waiting) and
 * oldestScheduledCheckRun (seconds the oldest of them has waited since it was scheduled). Locations are the
 * private locations (region slugs included) and any location with queued runs. One row per location and
 * minute, so replicas sampling the same minute store it once.
 */
export async function sampleLocationMetrics(db: Db, now: Date): Promise<void> {
  await db.query(
    `INSERT INTO location_metrics (account_id, location, sampled_at, queue_size, oldest_scheduled_seconds)
     SELECT l.account_id, l.location, $1, COALESCE(q.size, 0), COALESCE(q.oldest, 0)
       FROM (SELECT account_id, slug_name AS location FROM private_locations
             UNION SELECT DISTINCT account_id, location FROM runs WHERE status = 'queued') l
       LEFT JOIN (SELECT account_id, location, count(*)::int AS size,
                         GREATEST(0, floor(extract(epoch FROM ($2::timestamptz - min(scheduled_at)))))::int AS oldest
                    FROM runs WHERE status = 'queued' AND not_before <= $2
                   GROUP BY account_id, location) q
         ON q.account_id = l.account_id AND q.location = l.location
     ON CONFLICT DO NOTHING`,
    [minuteOf(now), now],
  );
  await db.query('DELETE FROM location_metrics WHERE sampled_at < $1', [
    new Date(now.getTime() - METRICS_RETENTION_MS - 86_400_000),
  ]);
}
