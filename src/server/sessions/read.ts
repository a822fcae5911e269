import type { CheckSession } from '../../checks/index.js';
import type { Db } from '../store/db.js';
import { sessionPagePath } from '../web-app/pages.js';
import type { TestSessionStatus } from './status.js';
import { getSession, getTestSession, type SessionRow, sessionResults, testSessionMembers } from './store.js';

/** Where a person reads a session: its page in the web app. */
export function checkSessionLink(publicUrl: string, sessionId: string): string {
  return `${publicUrl}${sessionPagePath(sessionId)}`;
}

/** The check-session record of docs/checks.md; status RUNNING and the time so far while it runs. */
async function checkSessionRecord(
  db: Db,
  session: SessionRow,
  publicUrl: string,
  now: Date,
): Promise<CheckSession> {
  const results = await sessionResults(db, session);
  const stoppedAt = session.stopped_at;
  return {
    checkSessionId: session.id,
    checkSessionLink: checkSessionLink(publicUrl, session.id),
    checkId: session.check_id,
    checkType: session.check_type,
    name: session.name,
    status: session.status,
    startedAt: session.started_at.toISOString(),
    stoppedAt: stoppedAt ? stoppedAt.toISOString() : null,
    timeElapsed: Math.max(0, (stoppedAt ?? now).getTime() - session.started_at.getTime()),
    runLocations: session.run_locations,
    runSource: session.run_source,
    results: results.map((r) => r.record),
  };
}

export async function readCheckSession(
  db: Db,
  accountId: string,
  sessionId: string,
  publicUrl: string,
  now: Date,
): Promise<CheckSession | null> {
  const session = await getSession(db, sessionId, accountId);
  return session ? checkSessionRecord(db, session, publicUrl, now) : null;
}

export interface TestSessionRecord {
  testSessionId: string;
  name: string;
  status: TestSessionStatus;
  location: string | null;
  refresh: boolean;
  errorGroupIds: string[];
  startedAt: string;
  stoppedAt: string | null;
  timeElapsed: number;
  checkSessions: CheckSession[];
}

export async function readTestSession(
  db: Db,
  accountId: string,
  testSessionId: string,
  publicUrl: string,
  now: Date,
): Promise<TestSessionRecord | null> {
  const testSession = await getTestSession(db, testSessionId, accountId);
  if (!testSession) return null;
  const checkSessions: CheckSession[] = [];
  for (const member of await testSessionMembers(db, testSessionId)) {
    checkSessions.push(await checkSessionRecord(db, member, publicUrl, now));
  }
  const stoppedAt = testSession.stopped_at;
  return {
    testSessionId: testSession.id,
    name: testSession.name,
    status: testSession.status,
    location: testSession.location,
    refresh: testSession.refresh,
    errorGroupIds: testSession.error_group_ids,
    startedAt: testSession.created_at.toISOString(),
    stoppedAt: stoppedAt ? stoppedAt.toISOString() : null,
    timeElapsed: Math.max(0, (stoppedAt ?? now).getTime() - testSession.created_at.getTime()),
    checkSessions,
  };
}
