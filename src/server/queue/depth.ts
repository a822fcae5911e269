import type { Db } from '../store/db.js';

/** One location's queue at a moment. */
export interface QueueDepth {
  accountId: string;
  location: string;
  /** Runs queued and due. */
  queueSize: number;
  /** Seconds the oldest of them has waited since it was scheduled (0 when none). */
  oldestSeconds: number;
}

/**
 * SQL selecting every location's queue at the timestamp parameter `now` (e.g. `$1`): columns account_id,
 * location, queue_size, oldest_seconds. Locations are the private locations (region slugs included) and any
 * location with queued runs; a location with none due has zeros.
 */
export function queueDepthSql(now: string): string {
  return `SELECT l.account_id, l.location, COALESCE(q.size, 0) AS queue_size, COALESCE(q.oldest, 0) AS oldest_seconds
       FROM (SELECT account_id, slug_name AS location FROM private_locations
             UNION SELECT DISTINCT account_id, location FROM runs WHERE status = 'queued') l
       LEFT JOIN (SELECT account_id, location, count(*)::int AS size,
                         GREATEST(0, floor(extract(epoch FROM (${now}::timestamptz - min(scheduled_at)))))::int AS oldest
                    FROM runs WHERE status = 'queued' AND not_before <= ${now}
                   GROUP BY account_id, location) q
         ON q.account_id = l.account_id AND q.location = l.location`;
}

/** Every location's queue at `now`. */
export async function queueDepths(db: Db, now: Date): Promise<QueueDepth[]> {
  const rows = await db.query<{
    account_id: string;
    location: string;
    queue_size: number;
    oldest_seconds: number;
  }>(queueDepthSql('$1'), [now]);
  return rows.map((r) => ({
    accountId: r.account_id,
    location: r.location,
    queueSize: Number(r.queue_size),
    oldestSeconds: Number(r.oldest_seconds),
  }));
}
