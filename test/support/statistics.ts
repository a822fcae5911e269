import type { Db } from '../../src/server/store/db.js';

/**
 * Makes this session's counts of changed and dead rows reach the statistics now (sent at most once a second
 * otherwise), as they have by the server's next look every 10 s.
 */
export async function flushStatistics(db: Db): Promise<void> {
  await db.query('SELECT pg_stat_force_next_flush()');
}
