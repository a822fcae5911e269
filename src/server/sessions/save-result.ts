import { type CheckResult, failureOf, type SessionStatus } from '../../checks/index.js';
import { recordErrorOccurrence } from '../error-groups/groups.js';
import type { RunEffects } from '../queue/events.js';
import type { RunRow } from '../queue/run.js';
import { finishRun } from '../queue/sweep.js';
import type { Db } from '../store/db.js';
import { finishSessionIfDone, type OnSessionsFinished } from './finish.js';
import { storedRecord, type UploadedRecord, unranRecord } from './result-record.js';
import { isFailure } from './status.js';
import { addTestSessionErrorGroups, insertResults, type SessionRow } from './store.js';

export interface ResultToSave {
  session: SessionRow;
  run: RunRow;
  uploaded: UploadedRecord;
  status: SessionStatus;
  resultType: 'FINAL' | 'ATTEMPT';
  now: Date;
  /** The result ends its run as `done` in the same write (else the caller ends the run). */
  endsRun?: boolean;
}

/**
 * Stores one result of a run: a failed one is grouped by its cleaned error message, and its group is listed on
 * the result and on the test session it belongs to. The caller holds the session's and the run's locks.
 */
export async function saveResult(tx: Db, result: ResultToSave): Promise<CheckResult> {
  const [record] = await saveResults(tx, [result]);
  return record as CheckResult;
}

/** `saveResult` for many results, inserted in one statement; the records in the order of `results`. */
export async function saveResults(tx: Db, results: readonly ResultToSave[]): Promise<CheckResult[]> {
  const records = results.map(({ uploaded, run, resultType, now }) =>
    storedRecord(uploaded, run, { resultType, errorGroupIds: [], now }),
  );
  // Failures are grouped in check order, so two transactions never take the same groups' locks crosswise.
  const failed = results
    .map((result, index) => ({ result, index, record: records[index] as CheckResult }))
    .filter(({ result }) => isFailure(result.status))
    .sort((a, b) => a.result.run.check_id.localeCompare(b.result.run.check_id));
  for (const { result, index, record } of failed) {
    const message = failureOf(record);
    if (!message) continue;
    const { run, session, now } = result;
    const groupId = await recordErrorOccurrence(tx, {
      accountId: run.account_id,
      checkId: run.check_id,
      message,
      now,
    });
    records[index] = { ...record, errorGroupIds: [groupId] };
    if (session.test_session_id) await addTestSessionErrorGroups(tx, session.test_session_id, [groupId]);
  }
  await insertResults(
    tx,
    results.map(({ session, run, status, now, endsRun }, index) => ({
      sessionId: session.id,
      accountId: run.account_id,
      runId: run.id,
      status,
      record: records[index] as CheckResult,
      now,
      endsRun,
    })),
  );
  return records;
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
  onFinished: OnSessionsFinished,
): Promise<void> {
  await finishRun(tx, run.id, outcome.run, now, outcome.reason);
  const uploaded = unranRecord(run, { status: outcome.status, reason: outcome.reason, now });
  await saveResult(tx, { session, run, uploaded, status: outcome.status, resultType: 'FINAL', now });
  await finishSessionIfDone(tx, session, now, effects, onFinished);
}
