import type { CheckResult, CheckType, RunSource, SessionStatus } from '../../checks/index.js';
import { withPayloads } from '../queue/payloads.js';
import type { RunStatus } from '../queue/rules.js';
import type { RunRow } from '../queue/run.js';
import type { Db } from '../store/db.js';
import { jsonbParam } from '../store/rows.js';
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
    [jsonbParam(sessions)],
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

/**
 * Locks the account's sessions that these runs belong to, in id order (so two transactions locking overlapping
 * sets never wait on each other in a circle): sessions first, then runs, as everywhere.
 */
export async function lockSessionsOfRuns(
  tx: Db,
  accountId: string,
  runIds: readonly string[],
): Promise<SessionRow[]> {
  return tx.query<SessionRow>(
    `SELECT * FROM check_sessions
      WHERE id IN (SELECT session_id FROM runs WHERE id = ANY($1::text[]) AND account_id = $2)
      ORDER BY id FOR UPDATE`,
    [runIds, accountId],
  );
}

/** How many runs a session has, and how many of them are still open (queued or leased). */
export interface RunCounts {
  open: number;
  total: number;
}

/** The run statuses `RunCounts.open` counts. */
export const OPEN_RUN_STATUSES: ReadonlySet<RunStatus> = new Set(['queued', 'leased']);

/** OPEN_RUN_STATUSES as a list of SQL literals, for `status IN (…)`. */
export const OPEN_RUN_STATUSES_SQL = [...OPEN_RUN_STATUSES].map((s) => `'${s}'`).join(', ');

/** `RunCounts` as SQL over `runs`, grouped by the caller. */
const RUN_COUNTS = `count(*) FILTER (WHERE status IN (${OPEN_RUN_STATUSES_SQL})) AS open,
  count(*) AS total`;

/** `RunCounts` from the counts' columns (PostgreSQL's count is a bigint, which comes as a string). */
function runCountsFrom(row: { open: number | string; total: number | string }): RunCounts {
  return { open: Number(row.open), total: Number(row.total) };
}

/** A run as it was locked, with its session's `RunCounts` as they stood then. */
export interface CountedRun extends RunRow {
  sessionCounts: RunCounts;
}

/**
 * Locks the account's runs of these ids in id order, as every statement that locks many runs does, and counts each
 * one's session's runs in the same statement. The caller holds the sessions' locks first; since every run of a
 * session opens and closes under its session's lock, the counts hold until the caller changes runs itself.
 */
export async function lockRunsCounted(
  tx: Db,
  accountId: string,
  runIds: readonly string[],
): Promise<CountedRun[]> {
  const rows = await tx.query<RunRow & { open: number | string; total: number | string }>(
    `SELECT r.*, c.open, c.total
       FROM runs r CROSS JOIN LATERAL (SELECT ${RUN_COUNTS} FROM runs WHERE session_id = r.session_id) c
      WHERE r.id = ANY($1::text[]) AND r.account_id = $2
      ORDER BY r.id FOR UPDATE OF r`,
    [runIds, accountId],
  );
  return (await withPayloads(tx, rows)).map(({ open, total, ...run }) => ({
    ...run,
    sessionCounts: runCountsFrom({ open, total }),
  }));
}

export async function setSessionStatus(tx: Db, id: string, status: SessionStatus, now: Date): Promise<void> {
  await setSessionStatuses(tx, [{ id, status }], now);
}

export async function setSessionStatuses(
  tx: Db,
  sessions: readonly { id: string; status: SessionStatus }[],
  now: Date,
): Promise<void> {
  if (sessions.length === 0) return;
  await tx.query(
    `UPDATE check_sessions s SET status = u.status, stopped_at = $3
       FROM unnest($1::text[], $2::text[]) AS u(id, status) WHERE s.id = u.id`,
    [sessions.map((s) => s.id), sessions.map((s) => s.status), now],
  );
}

export interface NewResult {
  sessionId: string;
  accountId: string;
  runId: string;
  status: SessionStatus;
  record: CheckResult;
  now: Date;
  /** The result ends its run (`done`, at `now`) in the same write that stores it. */
  endsRun?: boolean;
}

/**
 * Inserts results in one statement (the rows travel as one JSON array), each once: its run's `result_id` is
 * claimed in the same statement, so a second result of a run is refused by the store even where `check_results`
 * (partitioned by time) cannot hold a unique key on run_id.
 */
export async function insertResults(tx: Db, results: readonly NewResult[]): Promise<void> {
  if (results.length === 0) return;
  const rows = results.map((r) => ({
    id: r.record.checkResultId,
    session_id: r.sessionId,
    account_id: r.accountId,
    run_id: r.runId,
    result_type: r.record.resultType,
    attempt: r.record.attempts,
    record: r.record,
    status: r.status,
    location: r.record.runLocation,
    response_time: r.record.responseTime,
    created_at: r.now.toISOString(),
    ends_run: r.endsRun === true,
  }));
  const inserted = await tx.query<{ run_id: string }>(
    `WITH given AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(
         id text, session_id text, account_id text, run_id text, result_type text, attempt int, record jsonb,
         status text, location text, response_time double precision, created_at timestamptz, ends_run boolean)),
     claimed AS (
       UPDATE runs SET result_id = given.id,
              status = CASE WHEN given.ends_run THEN 'done' ELSE runs.status END,
              finished_at = CASE WHEN given.ends_run THEN given.created_at ELSE runs.finished_at END,
              reason = CASE WHEN given.ends_run THEN NULL ELSE runs.reason END,
              lease_expires_at = CASE WHEN given.ends_run THEN NULL ELSE runs.lease_expires_at END
         FROM given
        WHERE runs.id = given.run_id AND runs.result_id IS NULL RETURNING runs.id)
     INSERT INTO check_results (id, session_id, account_id, run_id, result_type, attempt, record, status, location,
                                response_time, created_at)
     SELECT g.id, g.session_id, g.account_id, g.run_id, g.result_type, g.attempt, g.record, g.status, g.location,
            g.response_time, g.created_at
       FROM given g JOIN claimed c ON c.id = g.run_id
     RETURNING run_id`,
    [jsonbParam(rows)],
  );
  if (inserted.length < results.length) {
    const stored = new Set(inserted.map((r) => r.run_id));
    const refused = results.find((r) => !stored.has(r.runId));
    throw new Error(`Run ${refused?.runId} has a result already`);
  }
}

/**
 * Margin below a session's start where its results are still looked for: results are recorded after their
 * session started, by the clock of whichever replica records them, and replicas' clocks may differ a little. The
 * bound lets the store read only the day partitions that can hold them.
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

/** Each session's `RunCounts`. */
export async function runCountsOf(tx: Db, sessionIds: readonly string[]): Promise<Map<string, RunCounts>> {
  const rows = await tx.query<{ session_id: string; open: number | string; total: number | string }>(
    `SELECT session_id, ${RUN_COUNTS} FROM runs WHERE session_id = ANY($1::text[]) GROUP BY session_id`,
    [sessionIds],
  );
  return new Map(rows.map((r) => [r.session_id, runCountsFrom(r)]));
}

/** The FINAL results of each session, oldest first. */
export async function finalResultsOf(
  tx: Db,
  sessions: readonly Pick<SessionRow, 'id' | 'started_at'>[],
): Promise<Map<string, ResultRow[]>> {
  const finals = new Map<string, ResultRow[]>();
  if (sessions.length === 0) return finals;
  const earliest = Math.min(...sessions.map((s) => s.started_at.getTime()));
  const rows = await tx.query<ResultRow & { session_id: string }>(
    `SELECT session_id, id, run_id, result_type, status, location, record FROM check_results
      WHERE session_id = ANY($1::text[]) AND result_type = 'FINAL' AND created_at >= $2
      ORDER BY created_at, attempt, id`,
    [sessions.map((s) => s.id), new Date(earliest - REPLICA_CLOCK_MARGIN_MS)],
  );
  for (const { session_id, ...row } of rows) finals.set(session_id, [...(finals.get(session_id) ?? []), row]);
  return finals;
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
