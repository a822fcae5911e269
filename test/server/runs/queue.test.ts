import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { leaseRuns, renewLeases } from '../../../src/server/queue/lease.js';
import type { LeasedRun, RunRow } from '../../../src/server/queue/run.js';
import {
  createApiCheck,
  createLocation,
  STORES,
  startTestServer,
  TestClock,
  type TestServer,
} from '../../support/server.js';
import { apiResult, TestAgent } from './agent-client.js';

const TTL = 45_000;

describe.each(STORES)('the run queue (%s)', (store) => {
  let server: TestServer;
  const clock = new TestClock();
  let location: Awaited<ReturnType<typeof createLocation>>;
  let other: Awaited<ReturnType<typeof createLocation>>;
  let n = 0;

  beforeAll(async () => {
    server = await startTestServer(store, { runs: { background: false, clock: clock.now } });
  });
  // Each test has locations of its own, so no queue holds runs of another test.
  beforeEach(async () => {
    n += 1;
    location = await createLocation(server, `queue-${n}`);
    other = await createLocation(server, `other-${n}`);
  });
  afterAll(async () => server?.close());

  const db = () => server.server.runs.db;
  const lease = (agentId: string, light: number, where = location.slugName) =>
    leaseRuns(db(), {
      accountId: server.accountId,
      location: where,
      agentId,
      credits: { light, browser: 0 },
      kinds: ['API', 'TCP', 'URL'],
      now: clock.now(),
      leaseTtlMs: TTL,
    });
  const trigger = async (checkId: string): Promise<string> => {
    const { status, body } = await server.api('POST', '/v2/check-sessions/trigger', {
      target: { checkId: [checkId] },
    });
    expect(status).toBe(201);
    return body.checkSessions[0].checkSessionId;
  };
  const session = async (id: string) => (await server.api('GET', `/v1/check-sessions/${id}`)).body;
  const runOf = async (sessionId: string): Promise<RunRow[]> =>
    db().query<RunRow>('SELECT * FROM runs WHERE session_id = $1 ORDER BY attempt', [sessionId]);

  it('gives every run to exactly one of many concurrent leasers, oldest first', async () => {
    const checkId = await createApiCheck(server, { privateLocations: [location.slugName], activated: false });
    const sessions: string[] = [];
    for (let i = 0; i < 12; i++) {
      sessions.push(await trigger(checkId));
      clock.advance(1);
    }
    const batches = await Promise.all(Array.from({ length: 8 }, (_, i) => lease(`agent-${i}`, 3)));
    const ids = batches.flat().map((run) => run.id);
    expect(ids).toHaveLength(12);
    expect(new Set(ids).size).toBe(12);
    for (const batch of batches) expect(batch.length).toBeLessThanOrEqual(3);
    expect(await lease('late', 5)).toEqual([]);

    // Oldest first: a single leaser gets them in the order they were scheduled.
    await lease('drain', 100);
    const first = await trigger(checkId);
    clock.advance(1);
    await trigger(checkId);
    const [oldest] = await lease('one', 1);
    expect(oldest?.session_id).toBe(first);
  });

  it('leases runs of both slot classes in one lease, each class up to its credit, oldest first', async () => {
    const apiCheck = await createApiCheck(server, {
      privateLocations: [location.slugName],
      activated: false,
    });
    const created = await server.api('POST', '/v1/checks/browser', {
      name: 'Browser',
      script: "import { test } from '@playwright/test'; test('x', async () => {});",
      privateLocations: [location.slugName],
      activated: false,
    });
    expect(created.status).toBe(201);
    const sessions: string[] = [];
    for (const checkId of [apiCheck, created.body.id, apiCheck, created.body.id, apiCheck]) {
      sessions.push(await trigger(checkId));
      clock.advance(1);
    }
    const both = (light: number, browser: number) =>
      leaseRuns(db(), {
        accountId: server.accountId,
        location: location.slugName,
        agentId: 'both',
        credits: { light, browser },
        kinds: ['API', 'BROWSER'],
        now: clock.now(),
        leaseTtlMs: TTL,
      });
    const first = await both(2, 1);
    expect(first.map((run) => [run.session_id, run.check_type])).toEqual([
      [sessions[0], 'API'],
      [sessions[1], 'BROWSER'],
      [sessions[2], 'API'],
    ]);
    const rest = await both(5, 5);
    expect(rest.map((run) => run.session_id)).toEqual([sessions[3], sessions[4]]);
    expect(await both(5, 5)).toEqual([]);
  });

  it('puts a run whose lease ran out back in the queue, and ends it TIMED_OUT after the third loss', async () => {
    const checkId = await createApiCheck(server, { privateLocations: [location.slugName], activated: false });
    const sessionId = await trigger(checkId);
    for (let loss = 1; loss <= 3; loss++) {
      const [run] = await lease(`agent-${loss}`, 1);
      expect(run?.session_id).toBe(sessionId);
      // A heartbeat naming the run keeps it; silence past the lease loses it.
      clock.advance(30_000);
      expect(
        await renewLeases(
          db(),
          { accountId: server.accountId, location: location.slugName, agentId: `agent-${loss}` },
          [run?.id as string],
          clock.now(),
          TTL,
        ),
      ).toEqual([run?.id]);
      clock.advance(30_000);
      await server.server.runs.reapTick();
      expect((await runOf(sessionId))[0]?.status).toBe('leased');
      clock.advance(TTL);
      await server.server.runs.reapTick();
      const [row] = await runOf(sessionId);
      expect(row?.status).toBe(loss < 3 ? 'queued' : 'timed_out');
    }
    const record = await session(sessionId);
    expect(record.status).toBe('TIMED_OUT');
    expect(record.results).toHaveLength(1);
    expect(record.results[0]).toMatchObject({
      resultType: 'FINAL',
      hasErrors: true,
      aborted: true,
      isCancelled: false,
    });
    expect(record.results[0].errorResult.requestError).toContain('lost its lease 3 times');
  });

  it('expires a run no agent took within 6 minutes, saying so in the session result', async () => {
    const checkId = await createApiCheck(server, { privateLocations: [location.slugName], activated: false });
    const sessionId = await trigger(checkId);
    clock.advance(5 * 60_000);
    await server.server.runs.reapTick();
    expect((await session(sessionId)).status).toBe('RUNNING');
    clock.advance(60_000);
    await server.server.runs.reapTick();
    const record = await session(sessionId);
    expect(record.status).toBe('TIMED_OUT');
    expect(record.results[0].errorResult.requestError).toBe(
      `no agent of location ${location.slugName} took the run within 6 minutes`,
    );
    expect((await runOf(sessionId))[0]).toMatchObject({ status: 'expired' });
    // An expired run is never handed out.
    expect(await lease('late', 5)).toEqual([]);
  });

  it('records a result once however often and however concurrently it is sent', async () => {
    const checkId = await createApiCheck(server, { privateLocations: [location.slugName], activated: false });
    const sessionId = await trigger(checkId);
    const agent = await TestAgent.open(server.url, location.key, server.accountId, 'poster');
    try {
      const [run] = await lease('poster', 1);
      const message = { runId: run?.id, attempt: 1 } as Parameters<TestAgent['postResult']>[0];
      const copies = await Promise.all(
        Array.from({ length: 5 }, () => agent.postResult(message, apiResult())),
      );
      expect(copies.map((c) => c.status)).toEqual([200, 200, 200, 200, 200]);
      expect(copies.filter((c) => c.body.recorded)).toHaveLength(1);
      expect(copies.filter((c) => c.body.duplicate)).toHaveLength(4);
      const later = await agent.postResult(message, apiResult({ failed: 'too late' }));
      expect(later.body).toEqual({ recorded: false, duplicate: true });
      const record = await session(sessionId);
      expect(record.status).toBe('PASSED');
      expect(record.results).toHaveLength(1);
      // A record without the flags of a result is refused, naming the field.
      const broken = await agent.postResult(message, { ...apiResult(), hasErrors: 'yes' });
      expect(broken.status).toBe(400);
      expect(broken.body.attributes.errors).toEqual([expect.objectContaining({ field: 'result.hasErrors' })]);
      // An unknown run can never be accepted: the agent drops such a result.
      const unknown = await agent.postResult({ ...message, runId: 'no-such-run' }, apiResult());
      expect(unknown.status).toBe(404);
    } finally {
      agent.close();
    }
  });

  describe('retries', () => {
    let agent: TestAgent;
    beforeEach(async () => {
      agent = await TestAgent.open(server.url, location.key, server.accountId, 'retrier');
    });
    afterEach(() => agent.close());

    const strategy = (fields: Record<string, unknown>) => ({
      type: 'FIXED',
      baseBackoffSeconds: 10,
      maxRetries: 2,
      maxDurationSeconds: 600,
      sameRegion: true,
      onlyOn: [],
      ...fields,
    });
    const post = async (run: LeasedRun | undefined, failed?: string, networkError = false) => {
      const message = { runId: run?.id, attempt: run?.attempt } as Parameters<TestAgent['postResult']>[0];
      return (await agent.postResult(message, apiResult(failed ? { failed } : {}), { networkError })).body;
    };

    it('retries failed attempts in the same location after the backoff, keeping each as an ATTEMPT', async () => {
      const checkId = await createApiCheck(server, {
        privateLocations: [location.slugName, other.slugName],
        activated: false,
        retryStrategy: strategy({ sameRegion: true }),
      });
      const sessionId = await trigger(checkId);
      const [first] = await lease('retrier', 1);
      expect(await post(first, 'connect ECONNREFUSED 127.0.0.1:9')).toEqual({
        recorded: true,
        duplicate: false,
      });
      // The retry waits for its backoff.
      expect(await lease('retrier', 1)).toEqual([]);
      clock.advance(10_000);
      const [second] = await lease('retrier', 1);
      expect(second).toMatchObject({ session_id: sessionId, attempt: 2, location: location.slugName });
      await post(second, 'connect ECONNREFUSED 127.0.0.1:9');
      clock.advance(10_000);
      const [third] = await lease('retrier', 1);
      expect(third).toMatchObject({ attempt: 3, location: location.slugName });
      await post(third);
      const record = await session(sessionId);
      expect(record.status).toBe('PASSED');
      expect(
        record.results.map((r: { resultType: string; attempts: number }) => [r.resultType, r.attempts]),
      ).toEqual([
        ['ATTEMPT', 1],
        ['ATTEMPT', 2],
        ['FINAL', 3],
      ]);
      // Both failures were the same error: one group, listed on both attempts.
      const [a, b] = record.results;
      expect(a.errorGroupIds).toHaveLength(1);
      expect(b.errorGroupIds).toEqual(a.errorGroupIds);
    });

    it('retries in another location when sameRegion is false, and stops at maxRetries', async () => {
      const checkId = await createApiCheck(server, {
        privateLocations: [location.slugName, other.slugName],
        activated: false,
        retryStrategy: strategy({ sameRegion: false, maxRetries: 1, baseBackoffSeconds: 0 }),
      });
      const sessionId = await trigger(checkId);
      const [first] = await lease('retrier', 1);
      expect(first?.location).toBe(location.slugName);
      await post(first, 'boom');
      const [retry] = await runOf(sessionId).then((runs) => runs.filter((r) => r.attempt === 2));
      expect(retry).toMatchObject({ location: other.slugName, status: 'queued' });
      const [taken] = await lease('other', 1, other.slugName);
      expect(taken?.id).toBe(retry?.id);
      // Results are accepted from agents of the run's location only.
      expect((await agent.postResult({ runId: taken?.id, attempt: 2 } as never, apiResult())).status).toBe(
        404,
      );
      const otherAgent = await TestAgent.open(server.url, other.key, server.accountId, 'other');
      await otherAgent.postResult({ runId: taken?.id, attempt: 2 } as never, apiResult({ failed: 'boom' }));
      otherAgent.close();
      const record = await session(sessionId);
      expect(record.status).toBe('FAILED');
      expect(record.runLocations).toEqual([location.slugName, other.slugName]);
      expect(
        record.results.map((r: { resultType: string; runLocation: string }) => [r.resultType, r.runLocation]),
      ).toEqual([
        ['ATTEMPT', location.slugName],
        ['FINAL', other.slugName],
      ]);
    });

    it('retries only network errors when onlyOn is NETWORK_ERROR', async () => {
      const checkId = await createApiCheck(server, {
        privateLocations: [location.slugName],
        activated: false,
        retryStrategy: strategy({ onlyOn: ['NETWORK_ERROR'], baseBackoffSeconds: 0 }),
      });
      const sessionId = await trigger(checkId);
      await post((await lease('retrier', 1))[0], 'connect ECONNREFUSED 127.0.0.1:9', true);
      await post((await lease('retrier', 1))[0], 'expected 200, got 500', false);
      const record = await session(sessionId);
      expect(record.status).toBe('FAILED');
      expect(record.results.map((r: { resultType: string }) => r.resultType)).toEqual(['ATTEMPT', 'FINAL']);
    });

    it('never retries a failure the agent calls permanent (a missing runtime, an undefined variable)', async () => {
      const checkId = await createApiCheck(server, {
        privateLocations: [location.slugName],
        activated: false,
        retryStrategy: strategy({ baseBackoffSeconds: 0 }),
      });
      const sessionId = await trigger(checkId);
      const [run] = await lease('retrier', 1);
      const message = { runId: run?.id, attempt: run?.attempt } as Parameters<TestAgent['postResult']>[0];
      const failed = apiResult({ failed: 'the URL uses {{HOST}}, which no variable defines' });
      await agent.postResult(message, failed, { permanentError: true });
      const record = await session(sessionId);
      expect(record.status).toBe('FAILED');
      expect(record.results.map((r: { resultType: string }) => r.resultType)).toEqual(['FINAL']);
      expect(await lease('retrier', 1)).toEqual([]);
    });
  });
});
