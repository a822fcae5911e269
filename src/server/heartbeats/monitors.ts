import { type HeartbeatCheck, heartbeatWindowMs } from '../../checks/index.js';
import { loadChecks } from '../sessions/checks.js';
import { effectiveCheck } from '../sessions/effective.js';
import type { Db } from '../store/db.js';
import { jsonParam, toNumber } from '../store/rows.js';

export type MonitorState = 'PASSING' | 'FAILING';

/** One row of `heartbeat_monitors` (migration 100). */
export interface MonitorRow {
  check_id: string;
  account_id: string;
  period_ms: number | string;
  grace_ms: number | string;
  since: Date;
  due_at: Date;
  last_ping_at: Date | null;
  state: MonitorState;
  active: boolean;
}

const addMs = (at: Date, ms: number) => new Date(at.getTime() + ms);

/** When a wait that began at `since` ends: one period and the grace later. */
export function dueAfter(since: Date, row: Pick<MonitorRow, 'period_ms' | 'grace_ms'>): Date {
  return addMs(since, toNumber(row.period_ms) + toNumber(row.grace_ms));
}

/**
 * Brings the rows of `heartbeat_monitors` in step with these checks, in the transaction that changed them: a row per
 * heartbeat check, active while the check and its group are activated. A new check, one activated again, and one
 * whose period or grace changed wait a whole window from now; anything else keeps its wait. A deleted check's row
 * goes with it (ON DELETE CASCADE).
 */
export async function syncHeartbeatRows(
  tx: Db,
  accountId: string,
  checkIds: readonly string[],
  now: Date,
): Promise<void> {
  if (checkIds.length === 0) return;
  const checks = (await loadChecks(tx, { accountId, ids: checkIds })).filter(
    (c) => c.checkType === 'HEARTBEAT',
  );
  if (checks.length === 0) return;
  const stored = await tx.query<MonitorRow>(
    'SELECT * FROM heartbeat_monitors WHERE check_id = ANY($1::text[]) FOR UPDATE',
    [checks.map((c) => c.id)],
  );
  const byId = new Map(stored.map((row) => [row.check_id, row]));
  const rows = checks.map((check) => {
    const { periodMs, graceMs } = heartbeatWindowMs(
      check.definition.heartbeat as HeartbeatCheck['heartbeat'],
    );
    const active = effectiveCheck(check).scheduled;
    const old = byId.get(check.id);
    const unchanged =
      old &&
      toNumber(old.period_ms) === periodMs &&
      toNumber(old.grace_ms) === graceMs &&
      (old.active || !active);
    const since = unchanged ? old.since : now;
    return {
      check_id: check.id,
      account_id: accountId,
      period_ms: periodMs,
      grace_ms: graceMs,
      since: since.toISOString(),
      due_at: (unchanged ? old.due_at : addMs(now, periodMs + graceMs)).toISOString(),
      state: old?.state ?? 'PASSING',
      active,
    };
  });
  await tx.query(
    `INSERT INTO heartbeat_monitors (check_id, account_id, period_ms, grace_ms, since, due_at, state, active)
     SELECT check_id, account_id, period_ms, grace_ms, since, due_at, state, active
       FROM jsonb_to_recordset($1::jsonb)
         AS r(check_id text, account_id text, period_ms bigint, grace_ms bigint, since timestamptz,
              due_at timestamptz, state text, active boolean)
     ON CONFLICT (check_id) DO UPDATE SET period_ms = EXCLUDED.period_ms, grace_ms = EXCLUDED.grace_ms,
       since = EXCLUDED.since, due_at = EXCLUDED.due_at, active = EXCLUDED.active`,
    [jsonParam(rows)],
  );
}

/** Locks a heartbeat check's row for the transaction that records a ping. */
export async function lockMonitor(tx: Db, checkId: string): Promise<MonitorRow | null> {
  const [row] = await tx.query<MonitorRow>(
    'SELECT * FROM heartbeat_monitors WHERE check_id = $1 FOR UPDATE',
    [checkId],
  );
  return row ?? null;
}

/** A ping arrived: the wait starts again from now, in the state the ping reported. */
export async function markPinged(tx: Db, row: MonitorRow, state: MonitorState, now: Date): Promise<void> {
  await tx.query(
    'UPDATE heartbeat_monitors SET since = $2, due_at = $3, last_ping_at = $2, state = $4 WHERE check_id = $1',
    [row.check_id, now, dueAfter(now, row), state],
  );
}

/** Whether an active heartbeat's wait ended by `$1` (also asked by src/server/scheduler/sweeps.ts). */
export const OVERDUE_PROBE = 'EXISTS (SELECT 1 FROM heartbeat_monitors WHERE active AND due_at <= $1)';

/** Whether any active heartbeat's wait ended: the one index probe of an idle tick. */
export async function anyOverdue(db: Db, now: Date): Promise<boolean> {
  const [row] = await db.query<{ overdue: boolean }>(`SELECT ${OVERDUE_PROBE} AS overdue`, [now]);
  return row?.overdue === true;
}

/**
 * Claims active rows whose wait ended (at most `limit`), skipping rows another transaction holds, and moves each
 * to FAILING with its next wait one period from now: a job that stays silent fails once per period it misses, so
 * run-based escalation and reminders count missed periods as they count failed runs. Answers the rows as they were.
 */
export async function claimOverdue(tx: Db, now: Date, limit: number): Promise<MonitorRow[]> {
  return tx.query<MonitorRow>(
    `WITH due AS (
       SELECT * FROM heartbeat_monitors WHERE active AND due_at <= $1 ORDER BY due_at LIMIT $2
          FOR UPDATE SKIP LOCKED)
     UPDATE heartbeat_monitors m
        SET state = 'FAILING', since = $1, due_at = $1::timestamptz + interval '1 millisecond' * m.period_ms
       FROM due WHERE m.check_id = due.check_id
     RETURNING due.*`,
    [now, limit],
  );
}
