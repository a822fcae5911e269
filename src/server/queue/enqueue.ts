import { randomUUID } from 'node:crypto';
import type { CheckType } from '../../checks/index.js';
import { slotClassOf } from '../../protocol/index.js';
import type { Db } from '../store/db.js';
import { jsonbParam } from '../store/rows.js';
import { addMs } from './clock.js';
import { payloadsByKey, storePayloads } from './payloads.js';
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

/**
 * Puts runs in their locations' queues with one statement, after their payloads the store does not hold yet (one
 * more; src/server/queue/payloads.ts); returns their ids, in order. Call it in a transaction.
 */
export async function enqueueRuns(db: Db, runs: readonly NewRun[]): Promise<string[]> {
  if (runs.length === 0) return [];
  const { keys, payloads } = payloadsByKey(runs);
  await storePayloads(db, payloads);
  const rows = runs.map((run, index) => ({
    id: randomUUID(),
    account_id: run.accountId,
    session_id: run.sessionId,
    check_id: run.checkId,
    location: run.location,
    slot_class: slotClassOf(run.checkType),
    check_type: run.checkType,
    attempt: run.attempt,
    payload_key: keys[index],
    due_at: run.dueAt,
    expires_at: addMs(run.dueAt, RUN_EXPIRY_MS),
    chain_started_at: run.chainStartedAt ?? null,
  }));
  await db.query(
    `INSERT INTO runs (id, account_id, session_id, check_id, location, slot_class, check_type, attempt, status,
                       payload_key, scheduled_at, not_before, expires_at, chain_started_at)
     SELECT id, account_id, session_id, check_id, location, slot_class, check_type, attempt, 'queued',
            payload_key, due_at, due_at, expires_at, chain_started_at
       FROM jsonb_to_recordset($1::jsonb) AS r(id text, account_id text, session_id text, check_id text,
            location text, slot_class text, check_type text, attempt integer, payload_key text, due_at timestamptz,
            expires_at timestamptz, chain_started_at timestamptz)`,
    [jsonbParam(rows)],
  );
  return rows.map((row) => row.id);
}
