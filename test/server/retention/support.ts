/** Results stored at chosen times of a test clock, through the real trigger, lease and result routes. */
import { leaseRuns } from '../../../src/server/queue/lease.js';
import { ALPHA } from '../../../src/server/retention/histogram.js';
import { createApiCheck, createLocation, type TestClock, type TestServer } from '../../support/server.js';
import { apiResult, TestAgent } from '../runs/agent-client.js';

export interface StoredResult {
  sessionId: string;
  runId: string;
}

export interface ResultToStore {
  /** PASSED unless said otherwise. */
  outcome?: 'FAILED' | 'DEGRADED';
  responseTime: number;
  /** A test session's run (TEST_NO_RECORD) instead of a triggered one. */
  testSession?: boolean;
  /** An artifact uploaded while the run is leased, by this name. */
  artifact?: string;
}

/**
 * A private location named `name`, an API check there that runs only when triggered (no double check, no retry),
 * and an agent of the location that takes its runs: what storeResult needs.
 */
export async function heldCheck(
  server: TestServer,
  name: string,
): Promise<{ agent: TestAgent; target: { checkId: string; location: string } }> {
  const created = await createLocation(server, name);
  const location = created.slugName;
  const checkId = await createApiCheck(server, {
    privateLocations: [location],
    activated: false,
    doubleCheck: false,
    retryStrategy: null,
  });
  const agent = await TestAgent.open(server.url, created.key, server.accountId, 'holder');
  return { agent, target: { checkId, location } };
}

/**
 * Triggers a session of `checkId` at the clock's time, leases its run to `agent`, uploads an artifact if asked, and
 * posts the result: what an agent does, with the run's result stamped at the clock's time.
 */
export async function storeResult(
  server: TestServer,
  clock: TestClock,
  agent: TestAgent,
  target: { checkId: string; location: string },
  result: ResultToStore,
): Promise<StoredResult> {
  const sessionId = await startSession(server, target, result.testSession === true);
  const [run] = await leaseRuns(server.server.runs.db, {
    accountId: server.accountId,
    location: target.location,
    agentId: agent.agentId,
    credits: { light: 1, browser: 0 },
    kinds: ['API'],
    now: clock.now(),
    leaseTtlMs: 45_000,
  });
  if (!run) throw new Error('nothing to lease');
  if (result.artifact) {
    const upload = await fetch(`${server.url}/v1/agent/runs/${run.id}/artifacts/${result.artifact}`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${agent.key}`,
        'x-service-account': server.accountId,
        'x-agent-id': agent.agentId,
        'content-type': 'text/plain',
      },
      body: 'an artifact',
    });
    if (upload.status !== 201) throw new Error(`artifact upload: ${upload.status}`);
  }
  const record = apiResult(result.outcome === 'FAILED' ? { failed: 'connect ECONNREFUSED' } : {});
  const startedAt = Date.parse(record.startedAt as string);
  const posted = await agent.postResult({ runId: run.id, attempt: run.attempt } as never, {
    ...record,
    isDegraded: result.outcome === 'DEGRADED',
    responseTime: result.responseTime,
    stoppedAt: new Date(startedAt + Math.ceil(result.responseTime)).toISOString(),
  });
  if (posted.status !== 200) throw new Error(`result: ${posted.status} ${JSON.stringify(posted.body)}`);
  return { sessionId, runId: run.id };
}

async function startSession(
  server: TestServer,
  target: { checkId: string; location: string },
  testSession: boolean,
): Promise<string> {
  const created = testSession
    ? await server.api('POST', '/v1/test-sessions/trigger', {
        name: 'a test session',
        target: { checkId: [target.checkId] },
      })
    : await server.api('POST', '/v2/check-sessions/trigger', { target: { checkId: [target.checkId] } });
  if (created.status !== 201) throw new Error(`trigger: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.checkSessions[0].checkSessionId;
}

/** Matches a percentile read from a rollup: within ALPHA (and the 0.1 ms it is rounded to) of the exact value. */
export function near(exact: number): { asymmetricMatch(actual: number): boolean; toString(): string } {
  const tolerance = exact * ALPHA + 0.1;
  return {
    asymmetricMatch: (actual: number) => Math.abs(actual - exact) <= tolerance,
    toString: () => `within ${tolerance} of ${exact}`,
  };
}

/** The exact q-quantile by nearest rank. */
export function nearestRank(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1] as number;
}
