import { rm } from 'node:fs/promises';
import { setImmediate } from 'node:timers/promises';
import { runArtifactsDir } from '../gateway/artifacts.js';
import { payloadKeysBefore } from '../queue/payloads.js';
import type { Db } from '../store/db.js';
import { dropExpiredPartitions } from './partitions.js';
import { DAY_MS } from './periods.js';

/**
 * Rows per delete statement: each statement is short, so on PGlite, where every query shares one connection,
 * results and agents never wait long behind a prune.
 */
export const BATCH_ROWS = 5000;

/**
 * Lets the event loop turn between two statements of a prune. On PGlite a statement holds the server's one thread
 * while it runs, and statements chained by `await` alone follow each other without a turn: requests, agents' messages
 * and their queries would wait for the whole prune rather than for one statement (bench/pglite-vacuum.ts: 5.5 s
 * instead of 1.8 s at a million runs, the three VACUUMs back to back).
 */
const letOthersIn = () => setImmediate();

/** What one prune removed. */
export interface Pruned {
  /** Day partitions of results dropped whole (PostgreSQL). */
  partitions: number;
  /** Result rows deleted one by one (PGlite; on PostgreSQL only rows outside day partitions). */
  results: number;
  runs: number;
  /** Runs' payloads, kept once per check and day (src/server/queue/payloads.ts). */
  payloads: number;
  artifacts: number;
  sessions: number;
  testSessions: number;
  rollups: number;
}

export interface PruneLimits {
  /** Results, runs, sessions and artifacts from before this go. */
  cutoff: Date;
  /** Rollups of periods that started before this go. */
  rollupCutoff: Date;
  /** The data folder whose `artifacts/` holds the files of runs. */
  dataDir: string;
}

/**
 * Removes what is past its retention, children before parents so a prune cut short leaves nothing orphaned:
 * results (whole partitions on PostgreSQL), runs with their artifacts (files first, then rows), sessions without
 * runs, test sessions without sessions, old rollups. A run's result is stamped when the run finished, and a
 * session stops after its runs, so one cutoff takes a run, its result, its artifacts and its session together.
 */
export async function pruneExpired(db: Db, limits: PruneLimits): Promise<Pruned> {
  const { cutoff } = limits;
  const partitions = db.kind === 'postgres' ? await dropExpiredPartitions(db, cutoff) : 0;
  const results = await deleteInBatches(db, 'check_results', 'id', 'created_at < $1', cutoff);
  const { runs, artifacts } = await pruneRuns(db, cutoff, limits.dataDir);
  // A day's payloads go a day after the cutoff passed it: its runs may finish (and be pruned) the day after.
  const payloads = await deleteInBatches(
    db,
    'run_payloads',
    'key',
    'key < $1',
    payloadKeysBefore(new Date(cutoff.getTime() - DAY_MS)),
  );
  const sessions = await deleteInBatches(
    db,
    'check_sessions',
    'id',
    'stopped_at < $1 AND NOT EXISTS (SELECT 1 FROM runs WHERE runs.session_id = check_sessions.id)',
    cutoff,
  );
  const testSessions = await deleteInBatches(
    db,
    'test_sessions',
    'id',
    'stopped_at < $1 AND NOT EXISTS (SELECT 1 FROM check_sessions c WHERE c.test_session_id = test_sessions.id)',
    cutoff,
  );
  const rollups = await deleteInBatches(
    db,
    'check_rollups',
    'ctid',
    'period_start < $1',
    limits.rollupCutoff,
  );
  const pruned = { partitions, results, runs, payloads, artifacts, sessions, testSessions, rollups };
  if (db.kind === 'pglite') await vacuumPruned(db, pruned);
  return pruned;
}

/** Deletes the rows of `table` that match `where` ($1 = `before`), BATCH_ROWS per statement; returns how many. */
async function deleteInBatches(
  db: Db,
  table: string,
  key: string,
  where: string,
  before: Date | string,
): Promise<number> {
  let total = 0;
  for (;;) {
    // `where` is repeated outside so PostgreSQL reads only the partitions that can match.
    const [gone] = await db.query<{ n: number | string }>(
      `WITH gone AS (
         DELETE FROM ${table} WHERE ${where}
            AND ${key} = ANY(ARRAY(SELECT ${key} FROM ${table} WHERE ${where} LIMIT ${BATCH_ROWS}))
         RETURNING 1
       )
       SELECT count(*) AS n FROM gone`,
      [before],
    );
    const n = Number(gone?.n ?? 0);
    total += n;
    await letOthersIn();
    if (n < BATCH_ROWS) return total;
  }
}

/** Runs that finished before the cutoff, a batch at a time: their artifact files, then their rows. */
async function pruneRuns(
  db: Db,
  cutoff: Date,
  dataDir: string,
): Promise<{ runs: number; artifacts: number }> {
  let runs = 0;
  let artifacts = 0;
  for (;;) {
    const ids = (
      await db.query<{ id: string }>(`SELECT id FROM runs WHERE finished_at < $1 LIMIT ${BATCH_ROWS}`, [
        cutoff,
      ])
    ).map((r) => r.id);
    if (ids.length === 0) break;
    const stored = await db.query<{ account_id: string; run_id: string }>(
      'SELECT DISTINCT account_id, run_id FROM artifacts WHERE run_id = ANY($1::text[])',
      [ids],
    );
    for (const { account_id, run_id } of stored) {
      await rm(runArtifactsDir(dataDir, account_id, run_id), { recursive: true, force: true });
    }
    const [gone] = await db.query<{ n: number | string }>(
      `WITH gone AS (DELETE FROM artifacts WHERE run_id = ANY($1::text[]) RETURNING 1) SELECT count(*) AS n FROM gone`,
      [ids],
    );
    await db.query('DELETE FROM runs WHERE id = ANY($1::text[])', [ids]);
    runs += ids.length;
    artifacts += Number(gone?.n ?? 0);
    await letOthersIn();
    if (ids.length < BATCH_ROWS) break;
  }
  return { runs, artifacts };
}

/**
 * PGlite runs no autovacuum (it is one process): without a VACUUM the space of deleted rows would never be used
 * again and the store would grow as if nothing were deleted.
 */
async function vacuumPruned(db: Db, pruned: Pruned): Promise<void> {
  const tables: [string, number][] = [
    ['check_results', pruned.results],
    ['runs', pruned.runs],
    ['run_payloads', pruned.payloads],
    ['artifacts', pruned.artifacts],
    ['check_sessions', pruned.sessions],
    ['test_sessions', pruned.testSessions],
    ['check_rollups', pruned.rollups],
  ];
  for (const [table, deleted] of tables) {
    if (deleted === 0) continue;
    await db.exec(`VACUUM ${table}`);
    await letOthersIn();
  }
}
