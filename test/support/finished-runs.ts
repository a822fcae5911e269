/**
 * Runs stored in bulk as the queue leaves them (for the store's maintenance: retention, VACUUM): each run inserted
 * queued, leased, then finished, its session started and stopped, its result inserted, so each run's and session's
 * row has the dead versions real ones leave. The runs are spread evenly over `days` from `fromMs`, in account `acc`
 * (made here), 300 checks, location `bench`.
 */
import type { Db } from '../../src/server/store/db.js';

const BATCH = 10_000;
const DAY_MS = 86_400_000;

/** A result's record about as large as a real one (about 1 KB of JSON). */
const RECORD = JSON.stringify({
  responseTime: 12,
  response: {
    status: 200,
    headers: { 'content-type': 'application/json', server: 'nginx' },
    body: 'x'.repeat(600),
  },
  assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200', actual: '200', passed: true }],
});

export async function storeFinishedRuns(
  db: Db,
  {
    runs,
    fromMs,
    days,
    afterBatch,
  }: { runs: number; fromMs: number; days: number; afterBatch?: (stored: number) => Promise<void> },
): Promise<void> {
  // The instant of run g (SQL, for generate_series's g).
  const at = `timestamptz 'epoch' + interval '1 millisecond' * (${fromMs} + (g::bigint * ${days * DAY_MS}) / ${runs})`;
  const ids = (prefix: string) => `(SELECT '${prefix}_' || g FROM generate_series($1::int, $2::int) g)`;
  await db.query("INSERT INTO accounts (id, name) VALUES ('acc', 'Bench')");
  for (let from = 0; from < runs; from += BATCH) {
    const range = [from, Math.min(runs, from + BATCH) - 1];
    await db.query(
      `INSERT INTO check_sessions (id, account_id, check_id, check_type, name, status, run_source, run_locations, started_at)
       SELECT 'ses_' || g, 'acc', 'chk_' || (g % 300), 'API', 'check', 'IN_PROGRESS', 'SCHEDULER', ARRAY['bench'], ${at}
         FROM generate_series($1::int, $2::int) g`,
      range,
    );
    await db.query(
      `INSERT INTO runs (id, account_id, session_id, check_id, location, slot_class, check_type, status,
                         scheduled_at, not_before, expires_at, payload_key)
       SELECT 'run_' || g, 'acc', 'ses_' || g, 'chk_' || (g % 300), 'bench', 'light', 'API', 'queued',
              ${at}, ${at}, ${at} + interval '10 minutes', 'chk_' || (g % 300) || ':2026-11-01'
         FROM generate_series($1::int, $2::int) g`,
      range,
    );
    await db.query(
      `UPDATE runs SET status = 'leased', agent_id = 'agent-1', leases = 1,
              lease_expires_at = scheduled_at + interval '1 minute'
        WHERE id IN ${ids('run')}`,
      range,
    );
    await db.query(
      `INSERT INTO check_results (id, session_id, account_id, run_id, result_type, attempt, record, created_at)
       SELECT 'res_' || g, 'ses_' || g, 'acc', 'run_' || g, 'FINAL', 1, $3::jsonb, ${at} + interval '200 ms'
         FROM generate_series($1::int, $2::int) g`,
      [...range, RECORD],
    );
    await db.query(
      `UPDATE runs SET status = 'done', finished_at = scheduled_at + interval '200 ms', lease_expires_at = NULL,
              result_id = 'res_' || substr(id, 5)
        WHERE id IN ${ids('run')}`,
      range,
    );
    await db.query(
      `UPDATE check_sessions SET status = 'PASSED', stopped_at = started_at + interval '200 ms'
        WHERE id IN ${ids('ses')}`,
      range,
    );
    await afterBatch?.((range[1] ?? 0) + 1);
  }
}

/** The store, telling `seen` of each VACUUM it ran: the table and how long it took. */
export function watchingVacuums(db: Db, seen: (table: string, ms: number) => void): Db {
  return {
    ...db,
    exec: async (sql) => {
      const started = performance.now();
      await db.exec(sql);
      if (sql.startsWith('VACUUM '))
        seen(sql.replace(/^VACUUM (\(.*?\) )?/, ''), performance.now() - started);
    },
  };
}
