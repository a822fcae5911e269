import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRetention } from '../../../src/server/retention/job.js';
import { resultPartitionNames } from '../../../src/server/retention/partitions.js';
import { listRollups } from '../../../src/server/retention/read.js';
import { PGLITE_ADVISED_RUNS } from '../../../src/server/retention/store-size.js';
import { listCheckResults } from '../../../src/server/sessions/results-query.js';
import { insertResults, sessionResults } from '../../../src/server/sessions/store.js';
import type { Db } from '../../../src/server/store/db.js';
import { migrate } from '../../../src/server/store/migrate.js';
import { MIGRATIONS } from '../../../src/server/store/migrations/index.js';
import { openFreshStore, STORES } from '../../support/server.js';
import { near } from '../retention/support.js';

const HOUR = 3_600_000;
const DAY = 86_400_000;
const BEFORE_RETENTION = MIGRATIONS.slice(
  0,
  MIGRATIONS.findIndex((m) => m.name === '050-retention'),
);

/** A result of the schema before 050: a session, its run and its result, stamped `at`. */
async function oldResult(
  db: Db,
  id: string,
  at: Date,
  outcome: { status: 'PASSED' | 'FAILED'; responseTime: number },
): Promise<void> {
  await db.query(
    `INSERT INTO check_sessions (id, account_id, check_id, check_type, name, status, run_source, run_locations,
                                 started_at, stopped_at)
     VALUES ($1, 'acc', 'chk', 'API', 'Health', $2, 'SCHEDULER', '{loc}', $3, $3)`,
    [`s-${id}`, outcome.status, at],
  );
  await db.query(
    `INSERT INTO runs (id, account_id, session_id, check_id, location, slot_class, check_type, status, payload,
                       scheduled_at, expires_at, finished_at)
     VALUES ($1, 'acc', $2, 'chk', 'loc', 'light', 'API', 'done', '{}', $3, $3, $3)`,
    [`r-${id}`, `s-${id}`, at],
  );
  await db.query(
    `INSERT INTO check_results (id, session_id, account_id, run_id, result_type, attempt, record, status, location,
                                created_at)
     VALUES ($1, $2, 'acc', $3, 'FINAL', 1, $4::jsonb, $5, 'loc', $6)`,
    [
      id,
      `s-${id}`,
      `r-${id}`,
      JSON.stringify({ checkResultId: id, responseTime: outcome.responseTime, resultType: 'FINAL' }),
      outcome.status,
      at,
    ],
  );
}

describe.each(STORES)('migrating a store that has results (%s)', (store) => {
  let db: Db;
  let drop = async () => {};
  let dataDir: string;
  const now = new Date();
  const recent = new Date(Math.floor((now.getTime() - 2 * HOUR) / HOUR) * HOUR + 60_000);
  const old = new Date(now.getTime() - 40 * DAY);

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'vantage-migrate-'));
    ({ db, drop } = await openFreshStore(store));
    await migrate(db, BEFORE_RETENTION);
    await db.query(`INSERT INTO accounts (id, name) VALUES ('acc', 'Account')`);
    await oldResult(db, 'res-a', recent, { status: 'PASSED', responseTime: 120 });
    await oldResult(db, 'res-b', new Date(recent.getTime() + 60_000), {
      status: 'FAILED',
      responseTime: 300,
    });
    await oldResult(db, 'res-old', old, { status: 'PASSED', responseTime: 50 });
    expect(await migrate(db)).toContain('050-retention');
  });
  afterAll(async () => {
    await drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps every result, readable as before, and each run knows its result', async () => {
    const listed = await listCheckResults(db, 'acc', {
      checkId: 'chk',
      resultType: 'ALL',
      page: 1,
      limit: 100,
    });
    expect(listed.map((r) => r.id)).toEqual(['res-b', 'res-a', 'res-old']);
    expect((await sessionResults(db, { id: 's-res-a', started_at: recent })).map((r) => r.id)).toEqual([
      'res-a',
    ]);
    const runs = await db.query<{ id: string; result_id: string }>(
      'SELECT id, result_id FROM runs ORDER BY id',
    );
    expect(runs).toEqual([
      { id: 'r-res-a', result_id: 'res-a' },
      { id: 'r-res-b', result_id: 'res-b' },
      { id: 'r-res-old', result_id: 'res-old' },
    ]);
  });

  it('still refuses a second result for a run', async () => {
    const record = {
      checkResultId: 'res-a-again',
      resultType: 'FINAL',
      attempts: 1,
      runLocation: 'loc',
      responseTime: 1,
    };
    await expect(
      insertResults(db, [
        {
          sessionId: 's-res-a',
          accountId: 'acc',
          runId: 'r-res-a',
          status: 'PASSED',
          record: record as never,
          now,
        },
      ]),
    ).rejects.toThrow('has a result already');
  });

  it('partitions the table with the old rows as its first partition', async () => {
    const tomorrow = new Date(Math.floor(now.getTime() / DAY) * DAY + DAY).toISOString().slice(0, 10);
    expect(await resultPartitionNames(db)).toEqual([
      `check_results_before_${tomorrow.replaceAll('-', '')}`,
      'check_results_default',
    ]);
  });

  it("leaves no foreign key on the rows every run writes, and keeps a session's on its test session", async () => {
    const keys = await db.query<{ tbl: string; ref: string }>(
      `SELECT conrelid::regclass::text AS tbl, confrelid::regclass::text AS ref
         FROM pg_constraint
        WHERE contype = 'f' AND (confrelid = 'check_sessions'::regclass OR conrelid = 'check_sessions'::regclass)
        ORDER BY 1, 2`,
    );
    expect(keys).toEqual([{ tbl: 'check_sessions', ref: 'test_sessions' }]);
  });

  it('indexes the rows every run writes only where a query needs them', async () => {
    const indexes = await db.query<{ indexname: string; indexdef: string }>(
      `SELECT indexname, indexdef FROM pg_indexes
        WHERE tablename IN ('check_results', 'check_sessions') AND (indexdef LIKE '%run_id%' OR indexdef LIKE '%test_session_id%')`,
    );
    // One result per run is the run's rule (runs.result_id), above; a scheduled run's session has no test session.
    expect(indexes.map((i) => i.indexname)).toEqual(['check_sessions_test_session']);
    expect(indexes[0]?.indexdef).toContain('WHERE (test_session_id IS NOT NULL)');
  });

  it('rolls up the old rows (their response time read from the record), then removes those past retention', async () => {
    const outcome = await runRetention(db, now, {
      retentionDays: 30,
      dataDir,
      pgliteAdvisedRuns: PGLITE_ADVISED_RUNS,
    });
    expect(outcome.pruned).toMatchObject({ results: 1, runs: 1, sessions: 1 });
    const listed = await listCheckResults(db, 'acc', {
      checkId: 'chk',
      resultType: 'ALL',
      page: 1,
      limit: 100,
    });
    expect(listed.map((r) => r.id)).toEqual(['res-b', 'res-a']);
    const hours = await listRollups(db, {
      accountId: 'acc',
      checkId: 'chk',
      resolution: 'hour',
      from: new Date(recent.getTime() - HOUR),
      to: now,
    });
    expect(hours).toEqual([
      {
        periodStart: new Date(recent.getTime() - 60_000).toISOString(),
        location: 'loc',
        count: 2,
        failures: 1,
        degraded: 0,
        responseTime: { p50: near(120), p95: near(300), p99: near(300) },
      },
    ]);
    const days = await listRollups(db, {
      accountId: 'acc',
      checkId: 'chk',
      resolution: 'day',
      from: new Date(old.getTime() - DAY),
      to: new Date(old.getTime() + DAY),
    });
    expect(days).toMatchObject([{ count: 1, failures: 0, responseTime: { p50: near(50) } }]);
  });
});
