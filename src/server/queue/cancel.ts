import type { Db } from '../store/db.js';
import { withPayloads } from './payloads.js';
import type { RunRow } from './run.js';

export const CANCELLED_BEFORE_START = 'the run was cancelled before an agent took it';

/**
 * Cancels the open runs of a session: queued runs end at once; leased runs are marked so the agent holding them
 * is told to stop (their CANCELLED result comes from the agent, or from the reaper when the agent is gone).
 */
export async function cancelSessionRuns(
  tx: Db,
  sessionId: string,
  now: Date,
): Promise<{ cancelled: RunRow[]; running: RunRow[] }> {
  const updated = await tx.query<RunRow>(
    `UPDATE runs SET
        status = CASE WHEN status = 'queued' THEN 'cancelled' ELSE status END,
        finished_at = CASE WHEN status = 'queued' THEN $2 ELSE finished_at END,
        reason = CASE WHEN status = 'queued' THEN $3 ELSE reason END,
        cancel_requested_at = CASE WHEN status = 'leased' THEN $2 ELSE cancel_requested_at END
      WHERE session_id = $1 AND status IN ('queued', 'leased')
      RETURNING *`,
    [sessionId, now, CANCELLED_BEFORE_START],
  );
  const rows = await withPayloads(tx, updated);
  return {
    cancelled: rows.filter((r) => r.status === 'cancelled'),
    running: rows.filter((r) => r.status === 'leased'),
  };
}

export interface CancelRequest {
  id: string;
  account_id: string;
  location: string;
  agent_id: string;
}

const CANCEL_PENDING = "status = 'leased' AND cancel_requested_at IS NOT NULL";

/** Whether some leased run's cancel was asked for, on any replica (src/server/scheduler/sweeps.ts). */
export const CANCELS_PROBE = `EXISTS (SELECT 1 FROM runs WHERE ${CANCEL_PENDING})`;

/** Leased runs of these agents whose cancel was asked for (read by every replica to reach its own agents). */
export async function pendingCancels(db: Db, agentIds: readonly string[]): Promise<CancelRequest[]> {
  if (agentIds.length === 0) return [];
  return db.query<CancelRequest>(
    `SELECT id, account_id, location, agent_id FROM runs WHERE ${CANCEL_PENDING} AND agent_id = ANY($1::text[])`,
    [agentIds],
  );
}
