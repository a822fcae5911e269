import { randomUUID } from 'node:crypto';
import type { CheckSession, RunSource } from '../../checks/index.js';
import { RunEffects } from '../queue/events.js';
import { transact } from '../queue/transact.js';
import { readCheckSession, readTestSession, type TestSessionRecord } from './read.js';
import type { RunsContext } from './runs-context.js';
import { startSessions } from './start.js';
import { insertTestSession } from './store.js';
import { selectChecks, type Target } from './target.js';

/** Starts one check session per selected check (POST /v2/check-sessions/trigger); runSource TRIGGER_API. */
export async function triggerCheckSessions(
  runs: RunsContext,
  accountId: string,
  target: Target | undefined,
  runSource: RunSource = 'TRIGGER_API',
): Promise<CheckSession[]> {
  const checks = await selectChecks(runs.db, accountId, target);
  const effects = new RunEffects();
  const now = runs.clock();
  const ids = await transact(runs.db, (tx) =>
    startSessions(tx, checks, { runSource, now, agentFreshMs: runs.agentFreshMs }, effects),
  );
  runs.publish(effects);
  const sessions: CheckSession[] = [];
  for (const id of ids) {
    const session = await readCheckSession(runs.db, accountId, id, runs.publicUrl, runs.clock());
    if (session) sessions.push(session);
  }
  return sessions;
}

export interface TestSessionRequest {
  name: string;
  location?: string | null;
  refresh?: boolean;
  target?: Target;
}

/**
 * Starts a test session (POST /v1/test-sessions/trigger): one check session per selected check, runSource
 * TEST_NO_RECORD, all at `location` when given. Test sessions never alert.
 */
export async function triggerTestSession(
  runs: RunsContext,
  accountId: string,
  request: TestSessionRequest,
): Promise<TestSessionRecord> {
  const checks = await selectChecks(runs.db, accountId, request.target);
  const effects = new RunEffects();
  const now = runs.clock();
  const id = randomUUID();
  await transact(runs.db, async (tx) => {
    await insertTestSession(tx, {
      id,
      account_id: accountId,
      name: request.name,
      location: request.location ?? null,
      refresh: request.refresh === true,
      created_at: now,
    });
    await startSessions(
      tx,
      checks,
      {
        runSource: 'TEST_NO_RECORD',
        now,
        testSessionId: id,
        location: request.location ?? null,
        agentFreshMs: runs.agentFreshMs,
      },
      effects,
    );
  });
  runs.publish(effects);
  return (await readTestSession(runs.db, accountId, id, runs.publicUrl, runs.clock())) as TestSessionRecord;
}
