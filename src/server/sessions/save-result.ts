import { type CheckResult, failureOf, type SessionStatus } from '../../checks/index.js';
import { recordErrorOccurrence } from '../error-groups/groups.js';
import type { RunEffects } from '../queue/events.js';
import type { RunRow } from '../queue/run.js';
import { finishRun } from '../queue/sweep.js';
import type { Db } from '../store/db.js';
import { finishSessionIfDone, type OnSessionFinished } from './finish.js';
import { storedRecord, type UploadedRecord, unranRecord } from './result-record.js';
import { isFailure } from './status.js';
import { addTestSessionErrorGroups, insertResult, type SessionRow } from './store.js';

export interface ResultToSave {
  session: SessionRow;
  run: RunRow;
  uploaded: UploadedRecord;
  status: SessionStatus;
  resultType: 'FINAL' | 'ATTEMPT';
  now: Date;
}

/**
 * Stores one result of a run: a failed one is grouped by its cleaned error message, and its group is listed on
 * the result and on the test session it belongs to. The caller holds the session's and the run's locks.
 */
export async function saveResult(tx: Db, result: ResultToSave): Promise<CheckResult> {
  const { session, run, now } = result;
  let record = storedRecord(result.uploaded, run, { resultType: result.resultType, errorGroupIds: [], now });
  const message = isFailure(result.status) ? failureOf(record) : null;
  if (message) {
    const groupId = await recordErrorOccurrence(tx, {
      accountId: run.account_id,
      checkId: run.check_id,
      message,
      now,
    });
    record = { ...record, errorGroupIds: [groupId] };
    if (session.test_session_id) await addTestSessionErrorGroups(tx, session.test_session_id, [groupId]);
  }
  await insertResult(tx, {
    sessionId: session.id,
    accountId: run.account_id,
    runId: run.id,
    status: result.status,
    record,
    now,
  });
  return record;
}

export type UnranOutcome =
  | { run: 'expired'; status: 'TIMED_OUT'; reason: string }
  | { run: 'timed_out'; status: 'TIMED_OUT'; reason: string }
  | { run: 'cancelled'; status: 'CANCELLED'; reason: string };

/**
 * Ends a run that no agent ran to its end (expired, lost its lease too often, cancelled) with a FINAL result that
 * says why, and ends its session when it was the last open run. The caller holds the session's and the run's locks.
 */
export async function closeUnranRun(
  tx: Db,
  session: SessionRow,
  run: RunRow,
  outcome: UnranOutcome,
  now: Date,
  effects: RunEffects,
  onFinished: OnSessionFinished,
): Promise<void> {
  await finishRun(tx, run.id, outcome.run, now, outcome.reason);
  const uploaded = unranRecord(run, { status: outcome.status, reason: outcome.reason, now });
  await saveResult(tx, { session, run, uploaded, status: outcome.status, resultType: 'FINAL', now });
  await finishSessionIfDone(tx, session, now, effects, onFinished);
}
