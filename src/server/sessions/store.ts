import type { CheckResult, CheckType, RunSource, SessionStatus } from '../../checks/index.js';
import type { Db } from '../store/db.js';
import { jsonParam } from '../store/rows.js';
import type { TestSessionStatus } from './status.js';

/** One row of `check_sessions`. */
export interface SessionRow {
  id: string;
  account_id: string;
  check_id: string;
  check_type: CheckType;
  name: string;
  status: SessionStatus | 'RUNNING';
  run_source: RunSource;
  run_locations: string[];
  test_session_id: string | null;
  started_at: Date;
  stopped_at: Date | null;
}

export interface ResultRow {
  id: string;
  run_id: string;
  result_type: 'FINAL' | 'ATTEMPT';
  status: SessionStatus;
  location: string;
  record: CheckResult;
}

export interface TestSessionRow {
  id: string;
  account_id: string;
  name: string;
  location: string | null;
  status: TestSessionStatus;
  error_group_ids: string[];
  refresh: boolean;
  created_at: Date;
  stopped_at: Date | null;
}

/** Inserts RUNNING sessions with one statement. */
export async function insertSessions(
  tx: Db,
  sessions: readonly Omit<SessionRow, 'status' | 'stopped_at'>[],
): Promise<void> {
  if (sessions.length === 0) return;
  await tx.query(
    `INSERT INTO check_sessions (id, account_id, check_id, check_type, name, status, run_source, run_locations,
                                 test_session_id, started_at)
     SELECT id, account_id, check_id, check_type, name, 'RUNNING', run_source, run_locations, test_session_id,
            started_at
       FROM jsonb_to_recordset($1::jsonb) AS s(id text, account_id text, check_id text, check_type text, name text,
            run_source text, run_locations text[], test_session_id text, started_at timestamptz)`,
    [jsonParam(sessions)],
  );
}

export async function getSession(db: Db, id: string, accountId?: string): Promise<SessionRow | null> {
  const [row] = await db.query<SessionRow>(
    `SELECT * FROM check_sessions WHERE id = $1${accountId === undefined ? '' : ' AND account_id = $2'}`,
    accountId === undefined ? [id] : [id, accountId],
  );
  return row ?? null;
}

/** Locks a session row: every change to a session's runs and status happens under it, so replicas agree. */
export async function lockSession(tx: Db, id: string): Promise<SessionRow | null> {
  const [row] = await tx.query<SessionRow>('SELECT * FROM check_sessions WHERE id = $1 FOR UPDATE', [id]);
  return row ?? null;
}

export async function setSessionStatus(tx: Db, id: string, status: SessionStatus, now: Date): Promise<void> {
  await tx.query('UPDATE check_sessions SET status = $2, stopped_at = $3 WHERE id = $1', [id, status, now]);
}

/**
 * Inserts a run's result, once: the run's `result_id` is claimed in the same statement, so a second result of a run
 * is refused by the store even where `check_results` (partitioned by time on PostgreSQL) cannot hold a unique key
 * on run_id.
 */
export async function insertResult(
  tx: Db,
  result: {
    sessionId: string;
    accountId: string;
    runId: string;
    status: SessionStatus;
    record: CheckResult;
    now: Date;
  },
): Promise<void> {
  const inserted = await tx.query(
    `WITH claimed AS (UPDATE runs SET result_id = $1 WHERE id = $4 AND result_id IS NULL RETURNING id)
     INSERT INTO check_results (id, session_id, account_id, run_id, result_type, attempt, record, status, location,
                                response_time, created_at)
     SELECT $1, $2, $3, claimed.id, $5, $6, $7::jsonb, $8, $9, $10, $11 FROM claimed
     RETURNING id`,
    [
      result.record.checkResultId,
      result.sessionId,
      result.accountId,
      result.runId,
      result.record.resultType,
      result.record.attempts,
      jsonParam(result.record),
      result.status,
      result.record.runLocation,
      result.record.responseTime,
      result.now,
    ],
  );
  if (inserted.length === 0) throw new Error(`Run ${result.runId} has a result already`);
}

/**
 * Margin below a session's start where its results are still looked for: results are recorded after their
 * session started, by the clock of whichever replica records them, and replicas' clocks may differ a little. The
 * bound lets PostgreSQL read only the day partitions that can hold them.
 */
const REPLICA_CLOCK_MARGIN_MS = 86_400_000;

/** A session's results, oldest first. */
export async function sessionResults(
  db: Db,
  session: Pick<SessionRow, 'id' | 'started_at'>,
): Promise<ResultRow[]> {
  return db.query<ResultRow>(
    `SELECT id, run_id, result_type, status, location, record FROM check_results
      WHERE session_id = $1 AND created_at >= $2 ORDER BY created_at, attempt, id`,
    [session.id, new Date(session.started_at.getTime() - REPLICA_CLOCK_MARGIN_MS)],
  );
}

export async function openRunCount(tx: Db, sessionId: string): Promise<number> {
  const [row] = await tx.query<{ open: number | string }>(
    `SELECT count(*) AS open FROM runs WHERE session_id = $1 AND status IN ('queued', 'leased')`,
    [sessionId],
  );
  return Number(row?.open ?? 0);
}

export async function insertTestSession(
  tx: Db,
  session: Pick<TestSessionRow, 'id' | 'account_id' | 'name' | 'location' | 'refresh' | 'created_at'>,
): Promise<void> {
  await tx.query(
    `INSERT INTO test_sessions (id, account_id, name, location, status, refresh, created_at)
     VALUES ($1, $2, $3, $4, 'RUNNING', $5, $6)`,
    [session.id, session.account_id, session.name, session.location, session.refresh, session.created_at],
  );
}

export async function getTestSession(db: Db, id: string, accountId: string): Promise<TestSessionRow | null> {
  const [row] = await db.query<TestSessionRow>(
    'SELECT * FROM test_sessions WHERE id = $1 AND account_id = $2',
    [id, accountId],
  );
  return row ?? null;
}

export async function lockTestSession(tx: Db, id: string): Promise<TestSessionRow | null> {
  const [row] = await tx.query<TestSessionRow>('SELECT * FROM test_sessions WHERE id = $1 FOR UPDATE', [id]);
  return row ?? null;
}

export async function addTestSessionErrorGroups(
  tx: Db,
  id: string,
  errorGroupIds: readonly string[],
): Promise<void> {
  if (errorGroupIds.length === 0) return;
  await tx.query(
    `UPDATE test_sessions SET error_group_ids =
        ARRAY(SELECT DISTINCT unnest(error_group_ids || $2::text[]) ORDER BY 1)
      WHERE id = $1`,
    [id, errorGroupIds],
  );
}

export async function testSessionMembers(db: Db, testSessionId: string): Promise<SessionRow[]> {
  return db.query<SessionRow>(
    'SELECT * FROM check_sessions WHERE test_session_id = $1 ORDER BY started_at, id',
    [testSessionId],
  );
}
