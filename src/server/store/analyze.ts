import type { Db } from './db.js';

/**
 * A table is analyzed once this many of its rows changed since the last time: PostgreSQL's autovacuum defaults,
 * `autovacuum_analyze_threshold` 50 plus `autovacuum_analyze_scale_factor` 0.1 of the table.
 */
const CHANGED = 'n_mod_since_analyze >= 50 + 0.1 * n_live_tup';

/** How often a PGlite store is asked whether a table changed that much (autovacuum's own look is once a minute). */
export const ANALYZE_LOOK_MS = 10_000;

/** Whether a table of a PGlite store is due for an ANALYZE: one read of its statistics, for the sweeps. */
export const CHANGED_TABLES_PROBE = `EXISTS (SELECT 1 FROM pg_stat_user_tables WHERE ${CHANGED})`;

/**
 * Analyzes the tables of a PGlite store whose rows changed by the share autovacuum would wait for; answers which.
 *
 * PGlite runs no autovacuum, so its planner would never learn what its tables hold. The statements the server runs
 * again and again are prepared (pglite-statements.ts) and run on a plan made once: made while a table was small,
 * that plan read the whole table at every run once it had grown (a lease and a result batch took twice as long at
 * 3,000 checks). An ANALYZE gives the planner the table as it is and drops the plans made on it, which are made
 * again at their next run. It reads a sample of at most 30,000 rows, however large the table. PostgreSQL's own
 * autovacuum does this there.
 */
export async function analyzeChangedTables(db: Db): Promise<string[]> {
  if (db.kind !== 'pglite') return [];
  const rows = await db.query<{ name: string }>(
    `SELECT format('%I.%I', schemaname, relname) AS name FROM pg_stat_user_tables WHERE ${CHANGED} ORDER BY relname`,
  );
  const tables = rows.map((r) => r.name);
  // One at a time: the statements waiting for PGlite run between them.
  for (const table of tables) await db.exec(`ANALYZE ${table}`);
  return tables;
}
