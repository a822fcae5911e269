import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runArtifactsDir } from '../../../src/server/gateway/artifacts.js';
import { resultPartitionNames } from '../../../src/server/retention/partitions.js';
import { databaseUrlOf, STORES, startTestServer, TestClock, type TestServer } from '../../support/server.js';
import type { TestAgent } from '../runs/agent-client.js';
import {
  heldCheck,
  near,
  nearestRank,
  type ResultToStore,
  type StoredResult,
  storeResult,
} from './support.js';

// A clock after today, so that the results land in day partitions the job makes (the partition
// of the store's past, made by migration 050, ends tomorrow).
const DAY1 = '2030-01-01';

describe.each(STORES)('results past their retention, and their rollups (%s)', (store) => {
  let server: TestServer;
  let replica: TestServer | undefined;
  const clock = new TestClock(`${DAY1}T10:00:00.000Z`);
  let agent: TestAgent;
  let location: string;
  let checkId: string;

  /** Results of one hour that rollups count: 16 passed, 2 degraded, 2 failed; and one of a test session. */
  const firstHour: ResultToStore[] = [
    ...Array.from({ length: 16 }, (_, i) => ({ responseTime: 10 * (i + 1) })),
    { outcome: 'DEGRADED', responseTime: 400 },
    { outcome: 'DEGRADED', responseTime: 450.5 },
    { outcome: 'FAILED', responseTime: 5 },
    { outcome: 'FAILED', responseTime: 900 },
    { testSession: true, responseTime: 10_000 },
  ];
  const secondHour: ResultToStore[] = [50, 60, 70].map((responseTime) => ({ responseTime }));
  const counted = (results: ResultToStore[]) => results.filter((r) => !r.testSession);
  const old: StoredResult[] = [];
  const recent: StoredResult[] = [];

  const rollups = async (query: string) => {
    const { status, body } = await server.api('GET', `/v1/checks/${checkId}/rollups?${query}`);
    expect(status).toBe(200);
    return body.rollups;
  };
  /** What a rollup of these results must say; percentiles within ALPHA of the exact ones. */
  const expected = (results: ResultToStore[]) => {
    const times = counted(results).map((r) => r.responseTime);
    const at = (q: number) => near(nearestRank(times, q));
    return {
      location,
      count: counted(results).length,
      failures: counted(results).filter((r) => r.outcome === 'FAILED').length,
      degraded: counted(results).filter((r) => r.outcome === 'DEGRADED').length,
      responseTime: { p50: at(0.5), p95: at(0.95), p99: at(0.99) },
    };
  };
  /** A retention run; on PostgreSQL by both replicas at once when `replicas` (they share no data folder, so not for artifacts). */
  const tick = async (replicas = false) => {
    const ticks = [server.server.runs.retentionTick()];
    if (replicas && replica) ticks.push(replica.server.runs.retentionTick());
    const [outcome] = await Promise.all(ticks);
    if (!outcome) throw new Error('no tick');
    return outcome;
  };

  beforeAll(async () => {
    server = await startTestServer(store, {
      runs: { background: false, clock: clock.now },
      resultRetentionDays: 2,
    });
    if (store === 'postgres') {
      replica = await startTestServer(store, {
        runs: { background: false, clock: clock.now },
        resultRetentionDays: 2,
        databaseUrl: databaseUrlOf(server),
      });
    }
    const held = await heldCheck(server, 'retention');
    agent = held.agent;
    const { target } = held;
    ({ checkId, location } = target);
    for (const [i, result] of firstHour.entries()) {
      clock.set(`${DAY1}T10:${String(i * 2).padStart(2, '0')}:00.000Z`);
      old.push(
        await storeResult(server, clock, agent, target, {
          ...result,
          artifact: i === 0 ? 'a.txt' : undefined,
        }),
      );
    }
    for (const [i, result] of secondHour.entries()) {
      clock.set(`${DAY1}T11:0${i}:00.000Z`);
      old.push(await storeResult(server, clock, agent, target, result));
    }
    clock.set('2030-01-03T12:00:00.000Z');
    recent.push(await storeResult(server, clock, agent, target, { responseTime: 30, artifact: 'b.txt' }));
    recent.push(await storeResult(server, clock, agent, target, { responseTime: 40 }));
  });
  afterAll(async () => {
    agent?.close();
    await replica?.stop();
    await server?.close();
  });

  it('rolls up each closed hour and day: counts, failures, degraded and percentiles, test sessions left out', async () => {
    await tick(true);
    expect(await rollups(`resolution=hour&from=${Date.parse(`${DAY1}T00:00:00Z`) / 1000}`)).toEqual([
      { periodStart: `${DAY1}T10:00:00.000Z`, ...expected(firstHour) },
      { periodStart: `${DAY1}T11:00:00.000Z`, ...expected(secondHour) },
    ]);
    const days = await rollups('resolution=day');
    expect(days).toEqual([
      { periodStart: `${DAY1}T00:00:00.000Z`, ...expected([...firstHour, ...secondHour]) },
    ]);
    // Run again (and, on PostgreSQL, by two replicas at once): nothing is counted twice.
    await tick(true);
    expect(await rollups('resolution=day')).toEqual(days);
  });

  it('removes results, runs, sessions and artifacts past the retention and keeps the recent ones', async () => {
    const oldArtifact = runArtifactsDir(
      server.server.context.config.dataDir,
      server.accountId,
      old[0]?.runId ?? '',
    );
    const recentArtifact = runArtifactsDir(
      server.server.context.config.dataDir,
      server.accountId,
      recent[0]?.runId ?? '',
    );
    expect(existsSync(oldArtifact)).toBe(true);
    const hoursBefore = await rollups(`resolution=hour&from=${Date.parse(`${DAY1}T00:00:00Z`) / 1000}`);

    // On PGlite the first day's results are a file of the data folder.
    const [firstDay] = await server.server.context.db.query<{ path: string }>(
      `SELECT pg_relation_filepath('check_results_20300101') AS path`,
    );
    const firstDayFile = join(server.server.context.config.dataDir, firstDay?.path ?? '');
    if (store === 'pglite') expect(statSync(firstDayFile).size).toBeGreaterThan(0);

    clock.set('2030-01-04T01:00:00.000Z');
    const outcome = await tick();
    expect(outcome.cutoff.toISOString()).toBe('2030-01-02T00:00:00.000Z');
    // The first day went whole, its partition dropped; no result was deleted row by row. On PGlite its disk space
    // is returned: the file is emptied at once (and unlinked at the next checkpoint, as PostgreSQL does).
    expect(outcome.pruned).toMatchObject({ partitions: 1, results: 0 });
    if (store === 'pglite') expect(existsSync(firstDayFile) ? statSync(firstDayFile).size : 0).toBe(0);

    for (const { sessionId } of old) {
      expect((await server.api('GET', `/v1/check-sessions/${sessionId}`)).status).toBe(404);
    }
    const listed = await server.api('GET', `/v1/check-results/${checkId}?resultType=ALL`);
    expect(listed.body.map((r: { checkSessionId: string }) => r.checkSessionId).sort()).toEqual(
      recent.map((r) => r.sessionId).sort(),
    );
    for (const { sessionId } of recent) {
      expect((await server.api('GET', `/v1/check-sessions/${sessionId}`)).body.results).toHaveLength(1);
    }
    expect(existsSync(oldArtifact)).toBe(false);
    expect(
      (await fetch(`${server.url}/v1/runs/${old[0]?.runId}/artifacts/a.txt`, { headers: server.headers }))
        .status,
    ).toBe(404);
    expect(existsSync(recentArtifact)).toBe(true);
    const db = server.server.context.db;
    const [left] = await db.query<{
      runs: string | number;
      sessions: string | number;
      artifacts: string | number;
    }>(
      `SELECT (SELECT count(*) FROM runs) AS runs, (SELECT count(*) FROM check_sessions) AS sessions,
              (SELECT count(*) FROM artifacts) AS artifacts`,
    );
    expect({
      runs: Number(left?.runs),
      sessions: Number(left?.sessions),
      artifacts: Number(left?.artifacts),
    }).toEqual({ runs: 2, sessions: 2, artifacts: 1 });

    // The rollups outlive the raw results they were made of.
    expect(await rollups(`resolution=hour&from=${Date.parse(`${DAY1}T00:00:00Z`) / 1000}`)).toEqual(
      expect.arrayContaining(hoursBefore),
    );
    expect(await rollups(`resolution=hour&from=${Date.parse('2030-01-03T00:00:00Z') / 1000}`)).toEqual([
      { periodStart: '2030-01-03T12:00:00.000Z', ...expected([{ responseTime: 30 }, { responseTime: 40 }]) },
    ]);
  });

  it('drops whole day partitions and makes the next days ahead', async () => {
    expect(await resultPartitionNames(server.server.context.db)).toEqual([
      'check_results_20300103',
      'check_results_20300104',
      'check_results_20300105',
      'check_results_20300106',
      'check_results_20300107',
      'check_results_default',
    ]);
    const [strays] = await server.server.context.db.query<{ n: string }>(
      'SELECT count(*) AS n FROM check_results_default',
    );
    expect(Number(strays?.n)).toBe(0);
  });

  it.runIf(store === 'postgres')(
    'leaves a partition for the next run while check_results is in use',
    async () => {
      const partitionNames = () => resultPartitionNames(server.server.context.db);
      const reader = new pg.Client({ connectionString: databaseUrlOf(server) });
      await reader.connect();
      try {
        await reader.query('BEGIN');
        await reader.query('SELECT count(*) FROM check_results');
        clock.set('2030-01-06T01:00:00.000Z');
        const blocked = await tick();
        expect(blocked.pruned.partitions).toBe(0);
        // The day's rows go anyway, one batch at a time, and its partition stays for the next run.
        expect(blocked.pruned.results).toBe(recent.length);
        expect(await partitionNames()).toContain('check_results_20300103');
        await reader.query('COMMIT');
        expect((await tick()).pruned.partitions).toBe(1);
        expect(await partitionNames()).not.toContain('check_results_20300103');
      } finally {
        await reader.end();
      }
    },
  );

  it('answers 400 naming the field for a bad rollups query, 404 for an unknown check', async () => {
    const fields = async (query: string) => {
      const { status, body } = await server.api('GET', `/v1/checks/${checkId}/rollups${query}`);
      expect(status).toBe(400);
      return body.attributes.errors.map(
        (e: { field: string; message: string }) => `${e.field}: ${e.message}`,
      );
    };
    expect(await fields('')).toEqual([expect.stringMatching(/^query\.resolution: /)]);
    expect(await fields('?resolution=week')).toEqual([
      expect.stringMatching(/^query\.resolution: .*hour.*day/),
    ]);
    expect(await fields('?resolution=hour&from=abc')).toEqual([expect.stringMatching(/^query\.from: /)]);
    expect(await fields('?resolution=hour&from=2000&to=1000')).toEqual(['query.from: must be less than to']);
    expect(await fields(`?resolution=hour&from=0&to=${40 * 86_400}`)).toEqual([
      'query.from: must be at most 31 days before to for resolution hour',
    ]);
    expect((await server.api('GET', '/v1/checks/no-such-check/rollups?resolution=day')).status).toBe(404);
    const openapi = await server.api('GET', '/openapi.json');
    expect(Object.keys(openapi.body.paths)).toContain('/v1/checks/{id}/rollups');
  });
});
