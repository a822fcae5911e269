import type { Db } from './db.js';
import { anyTableWhere, tablesWhere } from './table-stats.js';

/**
 * The share of a table's rows (`reltuples`) that may be dead before it is vacuumed, plus DEAD_ROWS_MIN. PostgreSQL's
 * autovacuum waits for a fifth (`autovacuum_vacuum_scale_factor` 0.2); here a twentieth, for the queue's sake (below).
 */
export const DEAD_SHARE = 0.05;
const DEAD_ROWS_MIN = 50;

/**
 * The rows inserted since a table's last VACUUM that make it due as well, as autovacuum's
 * `autovacuum_vacuum_insert_threshold` and `_scale_factor`: a table that only grows (`check_results`) gets its pages
 * marked all-visible while they are new, so that the first VACUUM after the retention prune deleted a day of it reads
 * that day's pages, not every page the table ever had.
 */
export const INSERTED_SHARE = 0.2;
const INSERTED_ROWS_MIN = 1000;

/**
 * `n_dead_tup` counts the row versions an update or a delete left that an index may still point to (pruning a page
 * keeps their line pointers, and the count, for VACUUM).
 */
const DUE = `s.n_dead_tup >= ${DEAD_ROWS_MIN} + ${DEAD_SHARE} * greatest(c.reltuples, 0)
     OR s.n_ins_since_vacuum >= ${INSERTED_ROWS_MIN} + ${INSERTED_SHARE} * greatest(c.reltuples, 0)`;

/** How often a PGlite store is asked whether a table is due (autovacuum's own look is once a minute). */
export const VACUUM_LOOK_MS = 10_000;

/** Whether a table of a PGlite store is due for a VACUUM: one read of its statistics, for the sweeps. */
export const VACUUM_DUE_PROBE = anyTableWhere(DUE);

/**
 * Vacuums the tables of a PGlite store whose dead rows reached DEAD_SHARE, or whose new rows INSERTED_SHARE;
 * answers which.
 *
 * PGlite runs no autovacuum. Without it, an index entry of a row version that an update or a delete left behind is
 * never removed: a btree drops such entries only from a page that an insert is about to split, and the queue's
 * indexes grow at one end. Every run is inserted queued, leased and ended, so the partial indexes of the queue
 * (`runs_lease_order`, `runs_leased`, `runs_queued_expiry`) kept an entry of every run ever made, all but a few
 * dead, in the order they are read: a lease, and the sweeps' probes of lost leases and untaken runs, stepped over
 * the entries of every run since the store began before the first live one (at 300 runs/s, a lease read 176 index
 * pages after 40 s and 1,234 after 4 minutes; docs/control-plane.md, Capacity, "Vacuumed as autovacuum would").
 *
 * INDEX_CLEANUP ON: by default VACUUM may leave the indexes alone when fewer than 2 % of the table's pages hold
 * dead rows (PostgreSQL's "bypass"), and a table of months of runs holds the last minutes' dead rows on that few;
 * their entries, the ones a lease reads first, would stay. One table at a time: the statements waiting for PGlite
 * run between them.
 */
export async function vacuumTablesDue(db: Db): Promise<string[]> {
  if (db.kind !== 'pglite') return [];
  const tables = await tablesWhere(db, DUE);
  for (const table of tables) await db.exec(`VACUUM (INDEX_CLEANUP ON) ${table}`);
  return tables;
}
