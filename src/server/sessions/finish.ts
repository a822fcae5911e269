import type { RunEffects } from '../queue/events.js';
import { isRetryableConflict } from '../queue/transact.js';
import type { Db } from '../store/db.js';
import { testSessionStatusOf, worstStatus } from './status.js';
import {
  lockTestSession,
  openRunCount,
  type ResultRow,
  type SessionRow,
  sessionResults,
  setSessionStatus,
  testSessionMembers,
} from './store.js';

/**
 * What else moves when a session ends, in the transaction that ends it: the server passes its alerting here
 * (alerts/evaluate.ts), which sessions do not import, since alerting reads sessions.
 */
export type OnSessionFinished = (
  tx: Db,
  session: SessionRow,
  status: SessionRow['status'],
  finals: readonly ResultRow[],
  now: Date,
) => Promise<void>;

/**
 * Ends a running session once none of its runs is open: its status is the worst of its FINAL results (one per
 * location of a parallel session), and `onFinished` (its check's alert state) moves in the same transaction. The
 * caller holds the session's lock.
 */
export async function finishSessionIfDone(
  tx: Db,
  session: SessionRow,
  now: Date,
  effects: RunEffects,
  onFinished: OnSessionFinished,
): Promise<void> {
  if (session.status !== 'RUNNING') return;
  if ((await openRunCount(tx, session.id)) > 0) return;
  const finals = (await sessionResults(tx, session)).filter((r) => r.result_type === 'FINAL');
  const status = worstStatus(finals.map((r) => r.status));
  await setSessionStatus(tx, session.id, status, now);
  await alertWithoutRisk(tx, session.id, effects, () => onFinished(tx, session, status, finals, now));
  effects.finishedSessions.add(session.id);
  if (session.test_session_id) await finishTestSessionIfDone(tx, session.test_session_id, now, effects);
}

/**
 * Alerting runs inside the session's transaction but never costs it its result: a failure of alerting itself is
 * rolled back to a savepoint and reported (a conflict still retries the whole transaction).
 */
async function alertWithoutRisk(tx: Db, sessionId: string, effects: RunEffects, alert: () => Promise<void>) {
  await tx.query('SAVEPOINT alerting');
  try {
    await alert();
    await tx.query('RELEASE SAVEPOINT alerting');
  } catch (error) {
    if (isRetryableConflict(error)) throw error;
    await tx.query('ROLLBACK TO SAVEPOINT alerting');
    effects.alertingFailures.push({ sessionId, error });
  }
}

/** Ends a running test session once all its check sessions ended. */
export async function finishTestSessionIfDone(
  tx: Db,
  testSessionId: string,
  now: Date,
  effects: RunEffects,
): Promise<void> {
  const testSession = await lockTestSession(tx, testSessionId);
  if (testSession?.status !== 'RUNNING') return;
  const members = await testSessionMembers(tx, testSessionId);
  if (members.some((m) => m.status === 'RUNNING')) return;
  const status = testSessionStatusOf(members.map((m) => m.status as Exclude<typeof m.status, 'RUNNING'>));
  await tx.query('UPDATE test_sessions SET status = $2, stopped_at = $3 WHERE id = $1', [
    testSessionId,
    status,
    now,
  ]);
  effects.finishedTestSessions.add(testSessionId);
}
