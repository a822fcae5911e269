import { nextDueAfterChange, scheduleOf } from '../../checks/index.js';
import { loadChecks } from '../sessions/checks.js';
import { effectiveCheck } from '../sessions/effective.js';
import type { Db } from '../store/db.js';
import { jsonParam, toNumber } from '../store/rows.js';
import { schedulesChanged } from './schedule-changes.js';

/** A check never claimed is due at once: the scheduler takes the interval that contains now. */
const NEVER_CLAIMED = new Date(0);

interface ScheduleRow {
  check_id: string;
  period_ms: number;
  shift_ms: number;
  next_due_at: Date;
  active: boolean;
}

/**
 * Brings the rows of `check_schedules` in step with these checks, in the transaction that changed them
 * (docs/control-plane.md, Scheduling): a row per check agents run (heartbeats have none), active while the check
 * and its group are activated. A new check is due at once; a changed schedule is next due at its first interval
 * after the last one claimed; an unchanged one keeps its next-due time, also across deactivation. A deleted
 * check's row goes with it (ON DELETE CASCADE).
 */
export async function syncScheduleRows(
  tx: Db,
  accountId: string,
  checkIds: readonly string[],
): Promise<void> {
  if (checkIds.length === 0) return;
  const checks = (await loadChecks(tx, { accountId, ids: checkIds }))
    .filter((c) => c.checkType !== 'HEARTBEAT')
    .map(effectiveCheck);
  if (checks.length === 0) return;
  const stored = await tx.query<ScheduleRow>(
    `SELECT check_id, period_ms, shift_ms, next_due_at, active FROM check_schedules
      WHERE check_id = ANY($1::text[]) FOR UPDATE`,
    [checks.map((c) => c.id)],
  );
  const byId = new Map(stored.map((row) => [row.check_id, row]));
  const rows: ScheduleRow[] = checks.map((check) => {
    const schedule = scheduleOf(check.frequency, check.frequencyOffset, check.id);
    const old = byId.get(check.id);
    const nextDue = old
      ? nextDueAfterChange(
          { periodMs: toNumber(old.period_ms), shiftMs: toNumber(old.shift_ms) },
          new Date(old.next_due_at),
          schedule,
        )
      : NEVER_CLAIMED;
    return {
      check_id: check.id,
      period_ms: schedule.periodMs,
      shift_ms: schedule.shiftMs,
      next_due_at: nextDue,
      active: check.scheduled,
    };
  });
  await tx.query(
    `INSERT INTO check_schedules (check_id, period_ms, shift_ms, next_due_at, active)
     SELECT check_id, period_ms, shift_ms, next_due_at, active
       FROM jsonb_to_recordset($1::jsonb)
         AS r(check_id text, period_ms bigint, shift_ms bigint, next_due_at timestamptz, active boolean)
     ON CONFLICT (check_id) DO UPDATE SET period_ms = EXCLUDED.period_ms, shift_ms = EXCLUDED.shift_ms,
       next_due_at = EXCLUDED.next_due_at, active = EXCLUDED.active`,
    [jsonParam(rows)],
  );
  schedulesChanged();
}
