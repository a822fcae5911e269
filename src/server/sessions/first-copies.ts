import {
  type CheckResult,
  type RetryStrategy,
  retryPolicyOf,
  type SessionStatus,
  shouldRetry,
} from '../../checks/index.js';
import type { ResultUpload } from '../../protocol/index.js';
import { enqueueRuns, type NewRun } from '../queue/enqueue.js';
import type { RunEffects } from '../queue/events.js';
import type { Db } from '../store/db.js';
import { finishSessionsIfDone, type OnSessionsFinished } from './finish.js';
import { retryLocation } from './locations.js';
import { statusOfRecord, type UploadedRecord } from './result-record.js';
import { saveResults } from './save-result.js';
import { isFailure } from './status.js';
import { type CountedRun, OPEN_RUN_STATUSES, type RunCounts, type SessionRow } from './store.js';

/** The first copy of a run's result, with its run (and its session's run counts) and session, both locked. */
export interface FirstCopy {
  session: SessionRow;
  run: CountedRun;
  candidate: { upload: ResultUpload; record: UploadedRecord };
}

/** What the control plane decided of a first copy: its status, and the retry that follows it (or null). */
interface Decided extends FirstCopy {
  status: SessionStatus;
  retry: NewRun | null;
}

/**
 * Stores first copies (FINAL, or ATTEMPT followed by a retry run when the retry strategy says so), ending their
 * runs in the same write, enqueues their retries and ends the sessions that have no open run left: a few
 * statements for any number.
 */
export async function recordFirstCopies(
  tx: Db,
  firsts: readonly FirstCopy[],
  now: Date,
  effects: RunEffects,
  onFinished: OnSessionsFinished,
): Promise<void> {
  if (firsts.length === 0) return;
  const decided = firsts.map((first) => decide(first, now));
  const records = await saveResults(
    tx,
    decided.map(({ session, run, candidate, status, retry }) => ({
      session,
      run,
      uploaded: candidate.record,
      status,
      resultType: retry ? 'ATTEMPT' : 'FINAL',
      now,
      endsRun: true,
    })),
  );
  await enqueueRetries(tx, decided, effects);
  const saved = decided.map(({ session, run, status }, index) => {
    const record = records[index] as CheckResult;
    return {
      sessionId: session.id,
      attempt: run.attempt,
      row: {
        id: record.checkResultId,
        run_id: run.id,
        result_type: record.resultType,
        status,
        location: record.runLocation,
        record,
      },
    };
  });
  await finishSessionsIfDone(
    tx,
    decided.map((d) => d.session),
    saved,
    now,
    effects,
    onFinished,
    countsAfter(decided),
  );
}

/**
 * Each session's run counts after this write, without reading them again: as they stood when its runs were locked,
 * less the runs this write ended, plus the retries it queued.
 */
function countsAfter(decided: readonly Decided[]): Map<string, RunCounts> {
  const counts = new Map<string, RunCounts>();
  for (const { session, run, retry } of decided) {
    const own = counts.get(session.id) ?? { ...run.sessionCounts };
    counts.set(session.id, own);
    if (OPEN_RUN_STATUSES.has(run.status)) own.open -= 1;
    if (retry) {
      own.open += 1;
      own.total += 1;
    }
  }
  return counts;
}

function decide(first: FirstCopy, now: Date): Decided {
  const { session, run, candidate } = first;
  const check = run.payload.check;
  const status = statusOfRecord(candidate.record, check.shouldFail === true);
  const policy = retryPolicyOf({
    retryStrategy: (check.retryStrategy ?? null) as RetryStrategy | null,
    doubleCheck: check.doubleCheck === true,
  });
  // maxDurationSeconds counts from the session's start, on the server's clock (agents' clocks may differ).
  const chainStartedAt = run.chain_started_at ?? session.started_at;
  const { networkError, permanentError } = candidate.upload;
  const retried =
    isFailure(status) &&
    session.status === 'RUNNING' &&
    run.cancel_requested_at === null &&
    shouldRetry(policy, run.attempt - 1, now.getTime() - chainStartedAt.getTime(), {
      networkError,
      permanentError,
    });
  const retry: NewRun | null = retried
    ? {
        accountId: run.account_id,
        sessionId: session.id,
        checkId: run.check_id,
        checkType: run.check_type,
        location: retryLocation(run.location, run.payload.retryLocations, policy.sameRegion),
        attempt: run.attempt + 1,
        payload: run.payload,
        dueAt: new Date(now.getTime() + policy.delayMs(run.attempt)),
        chainStartedAt,
      }
    : null;
  return { ...first, status, retry };
}

/** Retry runs go in their queues, and a session that retries at a new location lists it. */
async function enqueueRetries(tx: Db, decided: readonly Decided[], effects: RunEffects): Promise<void> {
  const retries = decided.flatMap((d) => (d.retry ? [{ session: d.session, retry: d.retry }] : []));
  if (retries.length === 0) return;
  await enqueueRuns(
    tx,
    retries.map((r) => r.retry),
  );
  for (const { session, retry } of retries) {
    effects.queued(retry.accountId, retry.location, { notBefore: retry.dueAt, checkType: retry.checkType });
    if (session.run_locations.includes(retry.location)) continue;
    await tx.query(
      'UPDATE check_sessions SET run_locations = array_append(run_locations, $2::text) WHERE id = $1',
      [session.id, retry.location],
    );
    session.run_locations = [...session.run_locations, retry.location];
  }
}
