import { queueDepthSql } from '../queue/depth.js';
import type { Db } from '../store/db.js';

/** How long location metrics are kept: the metrics route answers at most 15 days back. */
export const METRICS_RETENTION_MS = 15 * 86_400_000;

export function minuteOf(now: Date): Date {
  return new Date(Math.floor(now.getTime() / 60_000) * 60_000);
}

/**
 * Samples every location's queue once for the minute of `now`: queueSize (runs due and waiting) and
 * oldestScheduledCheckRun (seconds the oldest of them has waited since it was scheduled), as `queueDepthSql`
 * selects them. One row per location and minute, so replicas sampling the same minute store it once.
 */
export async function sampleLocationMetrics(db: Db, now: Date): Promise<void> {
  await db.query(
    `INSERT INTO location_metrics (account_id, location, sampled_at, queue_size, oldest_scheduled_seconds)
     SELECT d.account_id, d.location, $1, d.queue_size, d.oldest_seconds FROM (${queueDepthSql('$2')}) d
     ON CONFLICT DO NOTHING`,
    [minuteOf(now), now],
  );
  await db.query('DELETE FROM location_metrics WHERE sampled_at < $1', [
    new Date(now.getTime() - METRICS_RETENTION_MS - 86_400_000),
  ]);
}
