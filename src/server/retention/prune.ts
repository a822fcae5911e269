import { rm } from 'node:fs/promises';
import { setImmediate } from 'node:timers/promises';
import { runArtifactsDir } from '../gateway/artifacts.js';
import { payloadKeysBefore } from '../queue/payloads.js';
import { OPEN_RUN_STATUSES_SQL } from '../sessions/store.js';
import type { Db } from '../store/db.js';
import { dropExpiredPartitions, resultPartitionsBefore } from './partitions.js';
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
  /** Day partitions of results dropped whole. */
  partitions: number;
  /** Result rows deleted one by one: rows outside day partitions (the store's results from before it had them). */
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
 * results (whole day partitions), stopped sessions with their runs and the runs' artifacts (files first,
 * then rows), test sessions without sessions, old rollups. A run's result is stamped when the run finished, and a
 * session stops after its runs, so one cutoff takes a run, its result, its artifacts and its session together.
 */
export async function pruneExpired(db: Db, limits: PruneLimits): Promise<Pruned> {
  const { cutoff } = limits;
  const partitions = await dropExpiredPartitions(db, cutoff);
  const results = await deleteInBatches(db, 'check_results', 'id', 'created_at < $1', cutoff);
  const { runs, artifacts, sessions } = await pruneSessions(db, cutoff, limits.dataDir);
  // A day's payloads go a day after the cutoff passed it: its runs may finish (and be pruned) the day after.
  const payloads = await deleteInBatches(
    db,
    'run_payloads',
    'key',
    'key < $1',
    payloadKeysBefore(new Date(cutoff.getTime() - DAY_MS)),
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
  if (db.kind === 'pglite') await vacuumPruned(db, pruned, cutoff);
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
    const n = await deletedCount(
      db,
      `DELETE FROM ${table} WHERE ${where}
          AND ${key} = ANY(ARRAY(SELECT ${key} FROM ${table} WHERE ${where} LIMIT ${BATCH_ROWS}))`,
      [before],
    );
    total += n;
    await letOthersIn();
    if (n < BATCH_ROWS) return total;
  }
}

/**
 * Where a prune of sessions and runs has got to: the last session of its last batch, in the order it reads them.
 * Its stop as the store's text, to the microsecond (a Date would cut it to the millisecond).
 */
interface SessionKey {
  stoppedAt: string;
  id: string;
}

/**
 * Sessions that stopped before the cutoff, a batch at a time, with their runs: the runs' artifact files, then the
 * rows of their artifacts and runs, then the sessions'. A session stops when its last run ends, so its runs ended
 * before the cutoff too. They are found by their session (`runs_session`), which spares every run an entry in an
 * index of runs by the time they ended (migration 210). Batches follow the sessions' stop, then id: a session kept
 * (one with a run still open, which a stopped session never has) is not read again.
 */
async function pruneSessions(
  db: Db,
  cutoff: Date,
  dataDir: string,
): Promise<{ runs: number; artifacts: number; sessions: number }> {
  const pruned = { runs: 0, artifacts: 0, sessions: 0 };
  let after: SessionKey = { stoppedAt: '-infinity', id: '' };
  for (;;) {
    const batch = await db.query<{ id: string; stopped_at: string }>(
      `SELECT id, stopped_at::text AS stopped_at FROM check_sessions
        WHERE stopped_at < $1 AND (stopped_at, id) > ($2::timestamptz, $3::text)
        ORDER BY stopped_at, id LIMIT ${BATCH_ROWS}`,
      [cutoff, after.stoppedAt, after.id],
    );
    const last = batch.at(-1);
    if (!last) break;
    after = { stoppedAt: last.stopped_at, id: last.id };
    const sessionIds = batch.map((s) => s.id);
    await letOthersIn();
    const runIds = (
      await db.query<{ id: string }>(
        `SELECT id FROM runs WHERE session_id = ANY($1::text[]) AND status NOT IN (${OPEN_RUN_STATUSES_SQL})`,
        [sessionIds],
      )
    ).map((r) => r.id);
    await letOthersIn();
    pruned.artifacts += await deleteArtifactsOf(db, runIds, dataDir);
    await db.query('DELETE FROM runs WHERE id = ANY($1::text[])', [runIds]);
    pruned.runs += runIds.length;
    await letOthersIn();
    pruned.sessions += await deletedCount(
      db,
      `DELETE FROM check_sessions
        WHERE id = ANY($1::text[]) AND NOT EXISTS (SELECT 1 FROM runs WHERE runs.session_id = check_sessions.id)`,
      [sessionIds],
    );
    await letOthersIn();
    if (batch.length < BATCH_ROWS) break;
  }
  return pruned;
}

/** The artifacts of these runs: their files, then their rows; answers how many rows. */
async function deleteArtifactsOf(db: Db, runIds: readonly string[], dataDir: string): Promise<number> {
  if (runIds.length === 0) return 0;
  const stored = await db.query<{ account_id: string; run_id: string }>(
    'SELECT DISTINCT account_id, run_id FROM artifacts WHERE run_id = ANY($1::text[])',
    [runIds],
  );
  for (const { account_id, run_id } of stored) {
    await rm(runArtifactsDir(dataDir, account_id, run_id), { recursive: true, force: true });
  }
  return deletedCount(db, 'DELETE FROM artifacts WHERE run_id = ANY($1::text[])', [runIds]);
}

/** Runs `deletion` (a DELETE without RETURNING); answers how many rows it deleted, counted in the store. */
async function deletedCount(db: Db, deletion: string, params: readonly unknown[]): Promise<number> {
  const [gone] = await db.query<{ n: number | string }>(
    `WITH gone AS (${deletion} RETURNING 1) SELECT count(*) AS n FROM gone`,
    params,
  );
  return Number(gone?.n ?? 0);
}

/**
 * PGlite runs no autovacuum (it is one process): without a VACUUM the space of deleted rows would never be used
 * again and the store would grow as if nothing were deleted. Of the results, only the partitions rows were deleted
 * from one by one: a VACUUM of `check_results` would read every partition.
 */
async function vacuumPruned(db: Db, pruned: Pruned, cutoff: Date): Promise<void> {
  const results = pruned.results === 0 ? [] : await resultPartitionsBefore(db, cutoff);
  const tables: [string, number][] = [
    ...results.map((partition): [string, number] => [partition, pruned.results]),
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
