import type { SessionStatus } from '../../checks/index.js';
import type { RunEffects } from '../queue/events.js';
import { isRetryableConflict } from '../queue/transact.js';
import type { Db } from '../store/db.js';
import { testSessionStatusOf, worstStatus } from './status.js';
import {
  finalResultsOf,
  lockTestSession,
  type ResultRow,
  type RunCounts,
  runCountsOf,
  type SessionRow,
  setSessionStatuses,
  testSessionMembers,
} from './store.js';

/** A session that just ended: its status, and the FINAL results it was decided by. */
export interface FinishedSession {
  session: SessionRow;
  status: SessionStatus;
  finals: readonly ResultRow[];
}

/**
 * What else moves when sessions end, in the transaction that ends them: the server passes its alerting here
 * (alerts/evaluate.ts), which sessions do not import, since alerting reads sessions. Sessions come oldest first.
 * Resolves to how many notifications it wrote to the outbox.
 */
export type OnSessionsFinished = (tx: Db, finished: readonly FinishedSession[], now: Date) => Promise<number>;

/** A result saved in this transaction, with the attempt of its run. */
export interface SavedResult {
  row: ResultRow;
  sessionId: string;
  attempt: number;
}

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
  onFinished: OnSessionsFinished,
): Promise<void> {
  await finishSessionsIfDone(tx, [session], [], now, effects, onFinished);
}

/**
 * `finishSessionIfDone` for many sessions at once, in a few statements whatever their number. `saved` are the
 * results saved in this transaction: a session whose runs are all of one chain (its run count is the attempt of
 * the run just reported, which is FINAL) has that result as its only final, so it is not read back. `known` are the
 * sessions' run counts as they stand now, when the caller knows them; otherwise they are read.
 */
export async function finishSessionsIfDone(
  tx: Db,
  sessions: readonly SessionRow[],
  saved: readonly SavedResult[],
  now: Date,
  effects: RunEffects,
  onFinished: OnSessionsFinished,
  known?: ReadonlyMap<string, RunCounts>,
): Promise<void> {
  const running = [...new Map(sessions.filter((s) => s.status === 'RUNNING').map((s) => [s.id, s])).values()];
  if (running.length === 0) return;
  const counts =
    known ??
    (await runCountsOf(
      tx,
      running.map((s) => s.id),
    ));
  const done = running.filter((s) => (counts.get(s.id)?.open ?? 0) === 0);
  if (done.length === 0) return;

  const savedBySession = new Map<string, SavedResult[]>();
  for (const result of saved) {
    savedBySession.set(result.sessionId, [...(savedBySession.get(result.sessionId) ?? []), result]);
  }
  const finals = new Map<string, readonly ResultRow[]>();
  for (const session of done) {
    const [only, ...more] = savedBySession.get(session.id) ?? [];
    const soleChain = only && more.length === 0 && only.attempt === counts.get(session.id)?.total;
    if (soleChain && only.row.result_type === 'FINAL') finals.set(session.id, [only.row]);
  }
  const unknown = done.filter((s) => !finals.has(s.id));
  if (unknown.length > 0) for (const [id, rows] of await finalResultsOf(tx, unknown)) finals.set(id, rows);

  const finished: FinishedSession[] = done
    .map((session) => {
      const own = finals.get(session.id) ?? [];
      return { session, finals: own, status: worstStatus(own.map((r) => r.status)) };
    })
    .sort(
      (a, b) =>
        a.session.started_at.getTime() - b.session.started_at.getTime() ||
        a.session.id.localeCompare(b.session.id),
    );
  await setSessionStatuses(
    tx,
    finished.map((f) => ({ id: f.session.id, status: f.status })),
    now,
  );
  await alertWithoutRisk(tx, finished, effects, onFinished, now);
  for (const { session, status } of finished) effects.sessionEnded(session, status);
  // In id order, like every other lock taken on many rows.
  const testSessions = new Set(finished.flatMap((f) => f.session.test_session_id ?? []));
  for (const id of [...testSessions].sort()) await finishTestSessionIfDone(tx, id, now, effects);
}

/**
 * Alerting runs inside the sessions' transaction but never costs them their results: a failure of alerting
 * itself is rolled back to a savepoint and reported (a conflict still retries the whole transaction). When the
 * alerting of several sessions fails, each is tried again on its own, so one broken setting costs only its own.
 */
async function alertWithoutRisk(
  tx: Db,
  finished: readonly FinishedSession[],
  effects: RunEffects,
  onFinished: OnSessionsFinished,
  now: Date,
): Promise<void> {
  const all = await savepointed(tx, () => onFinished(tx, finished, now));
  if (all.ok) {
    effects.notificationsWritten += all.written;
    return;
  }
  const [first] = finished;
  if (finished.length === 1 && first) {
    effects.alertingFailures.push({ sessionId: first.session.id, error: all.error });
    return;
  }
  for (const one of finished) {
    const alone = await savepointed(tx, () => onFinished(tx, [one], now));
    if (alone.ok) effects.notificationsWritten += alone.written;
    else effects.alertingFailures.push({ sessionId: one.session.id, error: alone.error });
  }
}

/**
 * Runs `fn` after a savepoint, rolled back to if `fn` fails. A savepoint that is not rolled back to commits with its
 * transaction, so it is not released (one statement fewer per batch); a later savepoint of the same name is nested
 * in it, and a rollback goes to the latest.
 */
async function savepointed(
  tx: Db,
  fn: () => Promise<number>,
): Promise<{ ok: true; written: number } | { ok: false; error: unknown }> {
  await tx.query('SAVEPOINT alerting');
  try {
    const written = await fn();
    return { ok: true, written };
  } catch (error) {
    if (isRetryableConflict(error)) throw error;
    await tx.query('ROLLBACK TO SAVEPOINT alerting');
    return { ok: false, error };
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
