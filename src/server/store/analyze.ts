import type { Db } from './db.js';
import { anyTableWhere, tablesWhere } from './table-stats.js';

/**
 * A table is looked at once this many of its rows changed since it was last analyzed: PostgreSQL's autovacuum
 * defaults, `autovacuum_analyze_threshold` 50 plus `autovacuum_analyze_scale_factor` 0.1 of the table.
 */
const CHANGED = 's.n_mod_since_analyze >= 50 + 0.1 * s.n_live_tup';

/**
 * Its number of rows moved by that share from what the planner was last told (`reltuples`, -1 before any ANALYZE
 * or VACUUM). Autovacuum counts updates as changes; here they alone wait for RESTATE_MINUTES: every run is inserted
 * once and updated twice, so a growing `runs` reached the share three times sooner than its size did, and a small
 * table rewritten all day at the same size (`check_schedules`, at every claim) was analyzed at every look.
 */
const RESIZED = 'abs(s.n_live_tup - greatest(c.reltuples, 0)) >= 50 + 0.1 * greatest(c.reltuples, 0)';

/** How long a table whose rows changed but not their number keeps the statistics of its last ANALYZE. */
export const RESTATE_MINUTES = 10;

/** Whether a table is due for an ANALYZE at `$1` (the time now). */
const DUE = `${CHANGED}
    AND (${RESIZED} OR s.last_analyze IS NULL
         OR s.last_analyze <= $1::timestamptz - interval '${RESTATE_MINUTES} minutes')`;

/**
 * The statistics target of these ANALYZEs (PostgreSQL's default is 100): an ANALYZE samples 300 rows per unit.
 * PGlite runs it on the server's one thread, whose event loop waits while the sample is read: at 3,000 checks, a young store's
 * `runs`, `check_results` and `check_sessions` took 150–300 ms each at 100, 40–50 ms at 10, and held every run,
 * result and lease waiting meanwhile (lag p99 0.35 s against 0.11 s, bench/control-plane.ts). Ten histogram buckets
 * and ten common values are plenty for what the server's statements ask (keys, statuses, time ranges); what the
 * plans need most is the table's size (its page count, and rows per page from the sample) and to be made again.
 */
export const ANALYZE_STATISTICS_TARGET = 10;

/** How often a PGlite store is asked whether a table changed that much (autovacuum's own look is once a minute). */
export const ANALYZE_LOOK_MS = 10_000;

/** Whether a table of a PGlite store is due for an ANALYZE: one read of its statistics, for the sweeps. */
export const CHANGED_TABLES_PROBE = anyTableWhere(DUE);

/**
 * Analyzes the tables of a PGlite store whose size changed by the share autovacuum would wait for, or whose rows
 * changed that much RESTATE_MINUTES or more after their last ANALYZE; answers which.
 *
 * PGlite runs no autovacuum, so its planner would never learn what its tables hold. The statements the server runs
 * again and again are prepared (pglite-statements.ts) and run on a plan made once: made while a table was small,
 * that plan read the whole table at every run once it had grown (a lease and a result batch took twice as long at
 * 3,000 checks). An ANALYZE gives the planner the table as it is and drops the plans made on it, which are made
 * again at their next run. It reads a sample of at most 3,000 rows (ANALYZE_STATISTICS_TARGET), however large the
 * table. PostgreSQL's own autovacuum does this there.
 */
export async function analyzeChangedTables(db: Db, now = new Date()): Promise<string[]> {
  if (db.kind !== 'pglite') return [];
  const tables = await tablesWhere(db, DUE, [now]);
  // One at a time: the statements waiting for PGlite run between them. The three statements are one implicit
  // transaction: a failed ANALYZE takes its SET back with it.
  for (const table of tables) {
    await db.exec(
      `SET default_statistics_target = ${ANALYZE_STATISTICS_TARGET}; ANALYZE ${table}; RESET default_statistics_target`,
    );
  }
  return tables;
}
