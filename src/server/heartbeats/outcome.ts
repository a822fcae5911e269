import { randomUUID } from 'node:crypto';
import type { CheckResult, HeartbeatCheckResult, RunSource } from '../../checks/index.js';
import { enqueueRuns } from '../queue/enqueue.js';
import type { RunEffects } from '../queue/events.js';
import { finishRun, lockRun } from '../queue/sweep.js';
import { finishSessionIfDone, type OnSessionsFinished } from '../sessions/finish.js';
import type { UploadedRecord } from '../sessions/result-record.js';
import { saveResult } from '../sessions/save-result.js';
import { insertSessions, lockSession } from '../sessions/store.js';
import type { Db } from '../store/db.js';
import { type HeartbeatEvent, recordHeartbeatEvent } from './events.js';

/** The location of a heartbeat's sessions and results: the control plane that received its pings. */
export const HEARTBEAT_LOCATION = 'control-plane';

export interface HeartbeatCheckRef {
  accountId: string;
  checkId: string;
  name: string;
}

/**
 * Records what happened to a heartbeat check — a ping, a failure its job reported, a ping overdue — as an event
 * and, for an activated check, as a finished check session with one FINAL result: PASSED for a ping, FAILED
 * otherwise. Finishing it moves the check's alert state like any other session (alerting, incidents), in this
 * transaction. Answers the session's id, or null when only the event was recorded.
 */
export async function recordHeartbeatOutcome(
  tx: Db,
  check: HeartbeatCheckRef,
  event: Omit<HeartbeatEvent, 'sessionId'> & { reason: string },
  context: {
    active: boolean;
    runSource: RunSource;
    now: Date;
    effects: RunEffects;
    onFinished: OnSessionsFinished;
  },
): Promise<string | null> {
  const { now } = context;
  const { reason, ...kept } = event;
  const eventId = randomUUID();
  const sessionId = context.active ? randomUUID() : null;
  await recordHeartbeatEvent(tx, check.accountId, check.checkId, { ...kept, id: eventId, sessionId }, now);
  if (!sessionId) return null;

  await insertSessions(tx, [
    {
      id: sessionId,
      account_id: check.accountId,
      check_id: check.checkId,
      check_type: 'HEARTBEAT',
      name: check.name,
      run_source: context.runSource,
      run_locations: [HEARTBEAT_LOCATION],
      test_session_id: null,
      started_at: now,
    },
  ]);
  // A run row holds the result as it holds every other (one result per run); no agent ever sees it.
  const [runId] = await enqueueRuns(tx, [
    {
      accountId: check.accountId,
      sessionId,
      checkId: check.checkId,
      checkType: 'HEARTBEAT',
      location: HEARTBEAT_LOCATION,
      attempt: 1,
      payload: {
        runSource: context.runSource,
        check: { id: check.checkId, name: check.name, checkType: 'HEARTBEAT' },
        inheritedVariables: [],
        clientCertificates: [],
        retryLocations: [],
      },
      dueAt: now,
    },
  ]);
  await finishRun(tx, runId as string, 'done', now, null);
  const run = await lockRun(tx, runId as string);
  const session = await lockSession(tx, sessionId);
  if (!run || !session) throw new Error(`the heartbeat session ${sessionId} vanished in its own transaction`);
  const failed = event.state === 'FAILING';
  const detail: HeartbeatCheckResult = {
    eventId,
    state: event.state,
    source: event.source,
    requestError: failed ? reason : '',
  };
  const uploaded: UploadedRecord & Pick<CheckResult, 'heartbeatCheckResult'> = {
    hasErrors: false,
    hasFailures: failed,
    isDegraded: false,
    overMaxResponseTime: false,
    aborted: false,
    isCancelled: false,
    responseTime: 0,
    startedAt: now.toISOString(),
    stoppedAt: now.toISOString(),
    heartbeatCheckResult: detail,
  };
  const status = failed ? 'FAILED' : 'PASSED';
  await saveResult(tx, { session, run, uploaded, status, resultType: 'FINAL', now });
  await finishSessionIfDone(tx, session, now, context.effects, context.onFinished);
  return sessionId;
}
