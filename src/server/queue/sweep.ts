import type { Db } from '../store/db.js';
import { addMs } from './clock.js';
import { withPayloads } from './payloads.js';
import { RUN_EXPIRY_MS, type RunStatus } from './rules.js';
import type { RunRow } from './run.js';

export interface RunRef {
  id: string;
  session_id: string;
}

const LEASE_RAN_OUT = "status = 'leased' AND lease_expires_at <= $1";
const NOBODY_TOOK = "status = 'queued' AND expires_at <= $1";

/** Whether the reaper has work at `$1` (src/server/scheduler/sweeps.ts): a lease ran out, or a run expired. */
export const REAPER_PROBE = `EXISTS (SELECT 1 FROM runs WHERE ${LEASE_RAN_OUT})
  OR EXISTS (SELECT 1 FROM runs WHERE ${NOBODY_TOOK})`;

/** Leased runs whose lease ran out: their agents stopped naming them in heartbeats. */
export async function runsWithExpiredLeases(db: Db, now: Date, limit = 200): Promise<RunRef[]> {
  return db.query<RunRef>(
    `SELECT id, session_id FROM runs WHERE ${LEASE_RAN_OUT} ORDER BY lease_expires_at LIMIT $2`,
    [now, limit],
  );
}

/** Queued runs that no agent took before they expired. */
export async function runsNobodyTook(db: Db, now: Date, limit = 200): Promise<RunRef[]> {
  return db.query<RunRef>(
    `SELECT id, session_id FROM runs WHERE ${NOBODY_TOOK} ORDER BY expires_at LIMIT $2`,
    [now, limit],
  );
}

/** Locks a run row for the rest of the transaction (the caller holds its session's lock first). */
export async function lockRun(tx: Db, runId: string): Promise<RunRow | null> {
  const [row] = await withPayloads(
    tx,
    await tx.query<RunRow>('SELECT * FROM runs WHERE id = $1 FOR UPDATE', [runId]),
  );
  return row ?? null;
}

/** A run whose lease was lost goes back to the queue, counted, with a fresh window before it expires. */
export async function requeueLostRun(tx: Db, runId: string, now: Date): Promise<void> {
  await tx.query(
    `UPDATE runs SET status = 'queued', agent_id = NULL, lease_expires_at = NULL,
            lease_losses = lease_losses + 1, expires_at = $2
      WHERE id = $1`,
    [runId, addMs(now, RUN_EXPIRY_MS)],
  );
}

/** Ends a run for good. */
export async function finishRun(
  tx: Db,
  runId: string,
  status: Exclude<RunStatus, 'queued' | 'leased'>,
  now: Date,
  reason: string | null,
): Promise<void> {
  await finishRuns(tx, [runId], status, now, reason);
}

/** Ends runs for good, all alike. */
export async function finishRuns(
  tx: Db,
  runIds: readonly string[],
  status: Exclude<RunStatus, 'queued' | 'leased'>,
  now: Date,
  reason: string | null,
): Promise<void> {
  if (runIds.length === 0) return;
  await tx.query(
    `UPDATE runs SET status = $2::text, finished_at = $3, reason = $4, lease_expires_at = NULL,
            lease_losses = lease_losses + CASE WHEN $2::text = 'timed_out' THEN 1 ELSE 0 END
      WHERE id = ANY($1::text[])`,
    [runIds, status, now, reason],
  );
}
