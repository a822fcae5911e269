import { cancelSessionRuns } from '../queue/cancel.js';
import { RunEffects } from '../queue/events.js';
import { transact } from '../queue/transact.js';
import type { Db } from '../store/db.js';
import { finishTestSessionIfDone } from './finish.js';
import { unranRecord } from './result-record.js';
import { saveResult } from './save-result.js';
import { lockSession, lockTestSession, type SessionRow, setSessionStatus } from './store.js';

export type CancelOutcome = 'cancelled' | 'already-finished' | 'not-found';

/**
 * Cancels a running check session: queued runs end CANCELLED at once, agents running the others are told to stop
 * (their CANCELLED results follow), and the session is CANCELLED now.
 */
export async function cancelCheckSession(
  db: Db,
  accountId: string,
  sessionId: string,
  now: Date,
): Promise<{ outcome: CancelOutcome; effects: RunEffects }> {
  const effects = new RunEffects();
  const outcome = await transact(db, async (tx): Promise<CancelOutcome> => {
    const session = await lockSession(tx, sessionId);
    if (!session || session.account_id !== accountId) return 'not-found';
    if (session.status !== 'RUNNING') return 'already-finished';
    await cancelRunningSession(tx, session, now, effects);
    if (session.test_session_id) await finishTestSessionIfDone(tx, session.test_session_id, now, effects);
    return 'cancelled';
  });
  return { outcome, effects };
}

/** Cancels every running check session of a test session, and the test session. */
export async function cancelTestSession(
  db: Db,
  accountId: string,
  testSessionId: string,
  now: Date,
): Promise<{ outcome: CancelOutcome; effects: RunEffects }> {
  const effects = new RunEffects();
  const outcome = await transact(db, async (tx): Promise<CancelOutcome> => {
    // Check sessions first, then the test session: the order every other transaction takes these locks in.
    const members = await tx.query<SessionRow>(
      'SELECT * FROM check_sessions WHERE test_session_id = $1 AND account_id = $2 ORDER BY id FOR UPDATE',
      [testSessionId, accountId],
    );
    const testSession = await lockTestSession(tx, testSessionId);
    if (!testSession || testSession.account_id !== accountId) return 'not-found';
    if (testSession.status !== 'RUNNING') return 'already-finished';
    for (const member of members) {
      if (member.status === 'RUNNING') await cancelRunningSession(tx, member, now, effects);
    }
    await tx.query(`UPDATE test_sessions SET status = 'CANCELLED', stopped_at = $2 WHERE id = $1`, [
      testSessionId,
      now,
    ]);
    effects.finishedTestSessions.add(testSessionId);
    return 'cancelled';
  });
  return { outcome, effects };
}

async function cancelRunningSession(
  tx: Db,
  session: SessionRow,
  now: Date,
  effects: RunEffects,
): Promise<void> {
  const { cancelled, running } = await cancelSessionRuns(tx, session.id, now);
  for (const run of cancelled) {
    const uploaded = unranRecord(run, { status: 'CANCELLED', reason: run.reason ?? 'cancelled', now });
    await saveResult(tx, { session, run, uploaded, status: 'CANCELLED', resultType: 'FINAL', now });
  }
  for (const run of running) effects.cancelRuns.add(run.id);
  await setSessionStatus(tx, session.id, 'CANCELLED', now);
  effects.sessionEnded(session, 'CANCELLED');
}
