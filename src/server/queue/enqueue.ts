import { randomUUID } from 'node:crypto';
import type { CheckType } from '../../checks/index.js';
import { slotClassOf } from '../../protocol/index.js';
import type { Db } from '../store/db.js';
import { jsonParam } from '../store/rows.js';
import { addMs } from './clock.js';
import { RUN_EXPIRY_MS } from './rules.js';
import type { RunPayload } from './run.js';

export interface NewRun {
  accountId: string;
  sessionId: string;
  checkId: string;
  checkType: CheckType;
  location: string;
  attempt: number;
  payload: RunPayload;
  /** When the run is due: no agent gets it earlier, and it expires RUN_EXPIRY_MS later if none takes it. */
  dueAt: Date;
  chainStartedAt?: Date | null;
}

/** Puts runs in their locations' queues; returns their ids. */
export async function enqueueRuns(db: Db, runs: readonly NewRun[]): Promise<string[]> {
  const ids: string[] = [];
  for (const run of runs) {
    const id = randomUUID();
    await db.query(
      `INSERT INTO runs (id, account_id, session_id, check_id, location, slot_class, check_type, attempt, status,
                         payload, scheduled_at, not_before, expires_at, chain_started_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'queued', $9::jsonb, $10, $10, $11, $12)`,
      [
        id,
        run.accountId,
        run.sessionId,
        run.checkId,
        run.location,
        slotClassOf(run.checkType),
        run.checkType,
        run.attempt,
        jsonParam(run.payload),
        run.dueAt,
        addMs(run.dueAt, RUN_EXPIRY_MS),
        run.chainStartedAt ?? null,
      ],
    );
    ids.push(id);
  }
  return ids;
}
