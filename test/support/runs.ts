/** Running checks on a test control plane through its API: timings, triggers, completion waits, what was stored. */

import { afterAll, beforeAll } from 'vitest';
import type { RunServiceOptions } from '../../src/server/scheduler/run-services.js';
import { type CountingTarget, startCountingTarget } from './counting-target.js';
import { startTestServer, type TestServer } from './server.js';

/**
 * Timings of a control plane that runs checks on agents in tests: heartbeats every 300 ms renewing 3-second leases, and every loop
 * (scheduler, reaper, dispatch, cancel forwarding, completion waits) ticking ten times a second.
 */
export const FAST_RUNS: RunServiceOptions = {
  schedulerTickMs: 100,
  reaperTickMs: 100,
  dispatchPollMs: 100,
  completionPollMs: 100,
  heartbeatIntervalMs: 300,
  leaseTtlMs: 3000,
};

/** Triggers one check session per check (POST /v2/check-sessions/trigger); returns their ids in order. */
export async function trigger(server: TestServer, checkIds: string[]): Promise<string[]> {
  const { status, body } = await server.api('POST', '/v2/check-sessions/trigger', {
    target: { checkId: checkIds },
  });
  if (status !== 201) throw new Error(`trigger: ${status} ${JSON.stringify(body)}`);
  const byCheck = new Map<string, string>(
    body.checkSessions.map((s: { checkId: string; checkSessionId: string }) => [s.checkId, s.checkSessionId]),
  );
  return checkIds.map((id) => byCheck.get(id) ?? '');
}

/** Waits for a session to end through GET /v2/check-sessions/{id}/completion, asking again after each 408. */
export async function completed(server: TestServer, sessionId: string, timeoutMs = 20_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const wait = Math.max(1, Math.min(30, Math.ceil((deadline - Date.now()) / 1000)));
    const { status, body } = await server.api(
      'GET',
      `/v2/check-sessions/${sessionId}/completion?maxWaitSeconds=${wait}`,
    );
    if (status === 200) return body;
    if (status !== 408 || body?.attributes?.retryable !== true)
      throw new Error(`completion of ${sessionId}: ${status} ${JSON.stringify(body)}`);
    if (Date.now() >= deadline) throw new Error(`session ${sessionId} still running after ${timeoutMs} ms`);
  }
}

/** The results of a check through GET /v1/check-results/{checkId} (FINAL and ATTEMPT), newest first. */
export async function checkResults(server: TestServer, checkId: string): Promise<any[]> {
  const { status, body } = await server.api('GET', `/v1/check-results/${checkId}?resultType=ALL&limit=100`);
  if (status !== 200) throw new Error(`check results: ${status} ${JSON.stringify(body)}`);
  return body;
}

/** How many results the store holds for each run of these sessions (the unique key makes 1 the only sane value). */
export async function storedResultsPerRun(server: TestServer, sessionIds: string[]): Promise<number[]> {
  const rows = await server.server.context.db.query<{ n: string | number }>(
    `SELECT count(r.id) AS n FROM runs LEFT JOIN check_results r ON r.run_id = runs.id
      WHERE runs.session_id = ANY($1::text[]) GROUP BY runs.id`,
    [sessionIds],
  );
  return rows.map((r) => Number(r.n));
}

/** The run ids of sessions, as agents log them ("run started"). */
export async function runIdsOf(server: TestServer, sessionIds: string[]): Promise<string[]> {
  const rows = await server.server.context.db.query<{ id: string }>(
    'SELECT id FROM runs WHERE session_id = ANY($1::text[]) ORDER BY id',
    [sessionIds],
  );
  return rows.map((r) => r.id);
}

/** The agents a private location shows (GET /v1/private-locations/{id}). */
export async function agentsOf(
  server: TestServer,
  locationId: string,
): Promise<{ count: number; connected: boolean; versions: string[]; lastSeen: string | null }> {
  const { status, body } = await server.api('GET', `/v1/private-locations/${locationId}`);
  if (status !== 200) throw new Error(`location: ${status} ${JSON.stringify(body)}`);
  return body.agents;
}

/** An API check body against a local URL that never retries, so each session is one run. */
export function apiCheckAt(url: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: `GET ${new URL(url).pathname}`,
    activated: false,
    doubleCheck: false,
    request: {
      url,
      method: 'GET',
      assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200', property: '', regex: null }],
    },
    ...fields,
  };
}

/** A control-plane clock that runs `speed` times as fast as the wall clock, from now on. */
export function acceleratedClock(speed: number): () => Date {
  const origin = Date.now();
  return () => new Date(origin + (Date.now() - origin) * speed);
}

/**
 * A PGlite control plane with the given run timings and a counting target, started once for the test file and
 * closed after it; read them as `fixture.server` and `fixture.target` inside tests.
 */
export function useServerAndTarget(runs: RunServiceOptions = FAST_RUNS): {
  server: TestServer;
  target: CountingTarget;
} {
  const fixture = {} as { server: TestServer; target: CountingTarget };
  beforeAll(async () => {
    fixture.target = await startCountingTarget();
    fixture.server = await startTestServer('pglite', { runs });
  });
  afterAll(async () => {
    await fixture.server?.close();
    await fixture.target?.close();
  });
  return fixture;
}
