import { syncHeartbeatRows } from '../heartbeats/monitors.js';
import type { Db } from '../store/db.js';
import { syncScheduleRows } from './schedule-row.js';

/**
 * Brings the rows kept beside checks in step with them, in the transaction that changed them (a check saved,
 * deleted, moved between groups, or its group (de)activated): the scheduler's `check_schedules` and the heartbeat
 * monitors' `heartbeat_monitors`.
 */
export async function syncCheckRows(
  tx: Db,
  accountId: string,
  checkIds: readonly string[],
  now: Date,
): Promise<void> {
  await syncScheduleRows(tx, accountId, checkIds);
  await syncHeartbeatRows(tx, accountId, checkIds, now);
}
