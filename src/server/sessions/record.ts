import {
  type CheckType,
  problemsOf,
  type RetryStrategy,
  retryPolicyOf,
  shouldRetry,
} from '../../checks/index.js';
import type { ResultUpload } from '../../protocol/index.js';
import { conflict, notFound, validationError } from '../common/errors.js';
import { enqueueRuns } from '../queue/enqueue.js';
import { RunEffects } from '../queue/events.js';
import type { RunRow } from '../queue/run.js';
import { finishRun, lockRun } from '../queue/sweep.js';
import { transact } from '../queue/transact.js';
import type { Db } from '../store/db.js';
import { finishSessionIfDone, type OnSessionFinished } from './finish.js';
import { retryLocation } from './locations.js';
import {
  implausibleTimes,
  parseUploadedRecord,
  statusOfRecord,
  type UploadedRecord,
} from './result-record.js';
import { saveResult } from './save-result.js';
import { isFailure } from './status.js';
import { lockSession, type SessionRow } from './store.js';

export interface ResultAck {
  recorded: boolean;
  duplicate: boolean;
}

/** The agent that sends a result: results are accepted only for runs of its account and location. */
export interface Uploader {
  accountId: string;
  location: string;
}

/**
 * Records the result an agent sent for a run, once: the first copy is stored (FINAL, or ATTEMPT followed by a
 * retry run when the retry strategy says so), every later copy is acknowledged as a duplicate.
 */
export async function recordUploadedResult(
  db: Db,
  uploader: Uploader,
  upload: ResultUpload,
  now: Date,
  onFinished: OnSessionFinished,
): Promise<{ ack: ResultAck; effects: RunEffects }> {
  const parsed = parseUploadedRecord(upload.result);
  if (!parsed.success) {
    const problems = problemsOf(parsed.error).map((p) => ({ path: `result.${p.path}`, message: p.message }));
    throw validationError('body', problems);
  }
  const [ref] = await db.query<{ session_id: string; location: string; check_type: CheckType }>(
    'SELECT session_id, location, check_type FROM runs WHERE id = $1 AND account_id = $2',
    [upload.runId, uploader.accountId],
  );
  if (!ref || ref.location !== uploader.location) throw notFound('Run', upload.runId);
  const impossible = implausibleTimes(parsed.data, ref.check_type);
  if (impossible.length > 0) throw validationError('body', impossible);

  const effects = new RunEffects();
  const ack = await transact(db, async (tx) => {
    const session = await lockSession(tx, ref.session_id);
    const run = await lockRun(tx, upload.runId);
    if (!session || !run) throw notFound('Run', upload.runId);
    if (upload.attempt !== run.attempt) {
      throw conflict(`Run ${upload.runId} is attempt ${run.attempt}, not ${upload.attempt}`, {
        attempt: run.attempt,
      });
    }
    if (run.result_id !== null) return { recorded: false, duplicate: true };
    const holder = leaseHolderProblem(run, upload.agentId);
    if (holder) throw conflict(holder, { runId: run.id });
    await recordFirstCopy(tx, session, run, parsed.data, failureOf(upload), now, effects, onFinished);
    return { recorded: true, duplicate: false };
  });
  return { ack, effects };
}

/** What the retry strategy weighs of a failed run. */
type Failure = Pick<ResultUpload, 'networkError' | 'permanentError'>;
const failureOf = ({ networkError, permanentError }: ResultUpload): Failure => ({
  networkError,
  permanentError,
});

/**
 * Why an agent may not report this run: it is leased to another agent, or was never handed to any. A run whose
 * lease ran out and that waits in the queue again still takes the result of the agent that ran it.
 */
function leaseHolderProblem(run: RunRow, agentId: string): string | null {
  if (run.status === 'leased' && run.agent_id !== agentId) return `Run ${run.id} is leased to another agent`;
  if (run.leases === 0) return `Run ${run.id} was never handed to an agent`;
  return null;
}

async function recordFirstCopy(
  tx: Db,
  session: SessionRow,
  run: RunRow,
  uploaded: UploadedRecord,
  failure: Failure,
  now: Date,
  effects: RunEffects,
  onFinished: OnSessionFinished,
): Promise<void> {
  const check = run.payload.check;
  const status = statusOfRecord(uploaded, check.shouldFail === true);
  const policy = retryPolicyOf({
    retryStrategy: (check.retryStrategy ?? null) as RetryStrategy | null,
    doubleCheck: check.doubleCheck === true,
  });
  // maxDurationSeconds counts from the session's start, on the server's clock (agents' clocks may differ).
  const chainStartedAt = run.chain_started_at ?? session.started_at;
  const retry =
    isFailure(status) &&
    session.status === 'RUNNING' &&
    run.cancel_requested_at === null &&
    shouldRetry(policy, run.attempt - 1, now.getTime() - chainStartedAt.getTime(), failure);

  await saveResult(tx, { session, run, uploaded, status, resultType: retry ? 'ATTEMPT' : 'FINAL', now });
  await finishRun(tx, run.id, 'done', now, null);
  if (retry) {
    const location = retryLocation(run.location, run.payload.retryLocations, policy.sameRegion);
    await enqueueRuns(tx, [
      {
        accountId: run.account_id,
        sessionId: session.id,
        checkId: run.check_id,
        checkType: run.check_type,
        location,
        attempt: run.attempt + 1,
        payload: run.payload,
        dueAt: new Date(now.getTime() + policy.delayMs(run.attempt)),
        chainStartedAt,
      },
    ]);
    effects.queued(run.account_id, location);
    if (!session.run_locations.includes(location)) {
      await tx.query(
        'UPDATE check_sessions SET run_locations = array_append(run_locations, $2::text) WHERE id = $1',
        [session.id, location],
      );
    }
  }
  await finishSessionIfDone(tx, session, now, effects, onFinished);
}
