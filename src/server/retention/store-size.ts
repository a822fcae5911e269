import type { Db } from '../store/db.js';
import { plannedRows } from '../store/table-stats.js';

/**
 * About how many runs a PGlite store suits. Each VACUUM of `runs` reads its two indexes of every run whole, on the
 * server's one thread: about 0.14 s per million runs stored (bench/pglite-vacuum.ts), so above this a VACUUM
 * holds every request and agent for more than a second (docs/control-plane.md, Storage and retention).
 */
export const PGLITE_ADVISED_RUNS = 10_000_000;

/** How many runs a PGlite store holds when more than `advised`; null on PostgreSQL, whose autovacuum runs beside. */
export async function pgliteRunsAboveAdvised(db: Db, advised: number): Promise<number | null> {
  if (db.kind !== 'pglite') return null;
  const runs = await plannedRows(db, 'runs');
  return runs > advised ? runs : null;
}
