import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../../src/server/auth/keys.js';
import { cleanErrorMessage, errorHashOf } from '../../../src/server/error-groups/clean.js';
import { leaseRuns } from '../../../src/server/queue/lease.js';
import {
  createApiCheck,
  createLocation,
  STORES,
  startTestServer,
  TEST_PUBLIC_URL,
  TestClock,
  type TestServer,
} from '../../support/server.js';
import { apiResult, TestAgent } from './agent-client.js';

describe.each(STORES)('session and location routes (%s)', (store) => {
  let server: TestServer;
  const clock = new TestClock();
  let n = 0;

  beforeAll(async () => {
    server = await startTestServer(store, { runs: { background: false, clock: clock.now } });
  });
  afterAll(async () => server?.close());

  const fresh = async () => {
    n += 1;
    return createLocation(server, `rt-${n}`);
  };
  const lease = (location: string) =>
    leaseRuns(server.server.runs.db, {
      accountId: server.accountId,
      location,
      agentId: 'route-agent',
      credits: { light: 10, browser: 0 },
      kinds: ['API'],
      now: clock.now(),
      leaseTtlMs: 45_000,
    });

  describe('check sessions', () => {
    it('triggers the checks a target selects: ids, or OR-ed groups of tags (with !tag)', async () => {
      const location = await fresh();
      const tag = `t${n}`;
      const web = await createApiCheck(server, {
        name: 'web',
        tags: [tag, 'web'],
        privateLocations: [location.slugName],
      });
      const api = await createApiCheck(server, {
        name: 'api',
        tags: [tag, 'api', 'slow'],
        privateLocations: [location.slugName],
      });
      const off = await createApiCheck(server, {
        name: 'off',
        tags: [tag],
        activated: false,
        privateLocations: [location.slugName],
      });
      const names = async (target: unknown) => {
        const { status, body } = await server.api('POST', '/v2/check-sessions/trigger', { target });
        expect(status).toBe(201);
        return body.checkSessions.map((s: { name: string }) => s.name).sort();
      };
      expect(await names({ matchTags: [[tag]] })).toEqual(['api', 'web']);
      expect(
        await names({
          matchTags: [
            [tag, 'web'],
            [tag, 'api'],
          ],
        }),
      ).toEqual(['api', 'web']);
      expect(await names({ matchTags: [[tag, '!slow']] })).toEqual(['web']);
      expect(await names({ checkId: [off, api] })).toEqual(['api', 'off']);
      expect(await names({ checkId: [web, api], matchTags: [['web']] })).toEqual(['web']);
      const { body } = await server.api('POST', '/v2/check-sessions/trigger', { target: { checkId: [web] } });
      expect(body.checkSessions[0]).toEqual({
        checkSessionId: expect.any(String),
        checkSessionLink: `${TEST_PUBLIC_URL}/sessions/${body.checkSessions[0].checkSessionId}`,
        checkId: web,
        checkType: 'API',
        name: 'web',
        status: 'RUNNING',
        startedAt: clock.now().toISOString(),
        stoppedAt: null,
        timeElapsed: 0,
        runLocations: [location.slugName],
        runSource: 'TRIGGER_API',
        results: [],
      });
      // With no target, every activated check of the account.
      const all = await server.api('POST', '/v2/check-sessions/trigger', {});
      expect(all.status).toBe(201);
      const triggered = all.body.checkSessions.map((s: { checkId: string }) => s.checkId);
      expect(triggered).toEqual(expect.arrayContaining([web, api]));
      expect(triggered).not.toContain(off);
    });

    it('answers 404 when nothing matches and 400 for a malformed target', async () => {
      const unknown = await server.api('POST', '/v2/check-sessions/trigger', {
        target: { checkId: ['nope'] },
      });
      expect(unknown.status).toBe(404);
      expect(unknown.body.attributes).toEqual({ checkIds: ['nope'] });
      const noTag = await server.api('POST', '/v2/check-sessions/trigger', {
        target: { matchTags: [['no-such-tag']] },
      });
      expect(noTag.status).toBe(404);
      const bad = await server.api('POST', '/v2/check-sessions/trigger', {
        target: { matchTags: 'web', extra: 1 },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.attributes.errors.map((e: { field: string }) => e.field).sort()).toEqual([
        'target.extra',
        'target.matchTags',
      ]);
    });

    it('reads a session under /v1 and /v2, waits for its completion, and answers 408 while it runs', async () => {
      const location = await fresh();
      const checkId = await createApiCheck(server, {
        privateLocations: [location.slugName],
        activated: false,
      });
      const trigger = await server.api('POST', '/v2/check-sessions/trigger', {
        target: { checkId: [checkId] },
      });
      const id = trigger.body.checkSessions[0].checkSessionId;
      for (const version of ['v1', 'v2']) {
        const read = await server.api('GET', `/${version}/check-sessions/${id}`);
        expect(read.status).toBe(200);
        expect(read.body.checkSessionId).toBe(id);
      }
      const waited = await server.api('GET', `/v1/check-sessions/${id}/completion?maxWaitSeconds=1`);
      expect(waited.status).toBe(408);
      expect(waited.body).toEqual({
        statusCode: 408,
        error: 'Request Timeout',
        message: expect.any(String),
        attributes: { retryable: true, checkSessionId: id },
      });
      for (const bad of ['0', '31', 'x']) {
        expect(
          (await server.api('GET', `/v2/check-sessions/${id}/completion?maxWaitSeconds=${bad}`)).status,
        ).toBe(400);
      }
      // The result arrives while a caller waits: the wait ends with the finished record.
      const [run] = await lease(location.slugName);
      const agent = await TestAgent.open(server.url, location.key, server.accountId, 'route-agent');
      const waiting = server.api('GET', `/v2/check-sessions/${id}/completion?maxWaitSeconds=10`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await agent.postResult({ runId: run?.id, attempt: 1 } as never, apiResult({ degraded: true }));
      agent.close();
      const done = await waiting;
      expect(done.status).toBe(200);
      expect(done.body).toMatchObject({ status: 'DEGRADED', stoppedAt: expect.any(String) });
      expect(done.body.results).toEqual([
        expect.objectContaining({ resultType: 'FINAL', isDegraded: true, runLocation: location.slugName }),
      ]);
      // Cancelling a finished session is refused.
      expect((await server.api('POST', `/v1/check-sessions/${id}/cancel`)).status).toBe(409);
      // The check's history lists the result.
      const listed = await server.api('GET', `/v1/check-results/${checkId}`);
      expect(listed.body).toEqual([
        expect.objectContaining({ checkSessionId: id, isDegraded: true, resultType: 'FINAL' }),
      ]);
      const one = await server.api('GET', `/v1/check-results/${checkId}/${listed.body[0].id}`);
      expect(one.body.checkResultId).toBe(listed.body[0].id);
      expect((await server.api('GET', `/v1/check-results/${checkId}?resultType=ATTEMPT`)).body).toEqual([]);
      expect((await server.api('GET', `/v1/check-results/${randomUUID()}`)).status).toBe(404);
    });

    it('cancels a queued session at once, with a CANCELLED result', async () => {
      const location = await fresh();
      const checkId = await createApiCheck(server, {
        privateLocations: [location.slugName],
        activated: false,
      });
      const trigger = await server.api('POST', '/v2/check-sessions/trigger', {
        target: { checkId: [checkId] },
      });
      const id = trigger.body.checkSessions[0].checkSessionId;
      const cancelled = await server.api('POST', `/v1/check-sessions/${id}/cancel`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.status).toBe('CANCELLED');
      expect(cancelled.body.results).toEqual([
        expect.objectContaining({ isCancelled: true, errorGroupIds: [] }),
      ]);
      expect(await lease(location.slugName)).toEqual([]);
      expect((await server.api('GET', `/v1/check-sessions/${id}/completion`)).body.status).toBe('CANCELLED');
      // Cancelling again is harmless.
      expect((await server.api('POST', `/v1/check-sessions/${id}/cancel`)).status).toBe(200);
    });

    it('hides the sessions of other accounts', async () => {
      const location = await fresh();
      const checkId = await createApiCheck(server, {
        privateLocations: [location.slugName],
        activated: false,
      });
      const trigger = await server.api('POST', '/v2/check-sessions/trigger', {
        target: { checkId: [checkId] },
      });
      const id = trigger.body.checkSessions[0].checkSessionId;
      const otherAccount = randomUUID();
      const otherKey = `vk_${randomUUID()}`;
      await server.server.runs.db.query('INSERT INTO accounts (id, name) VALUES ($1, $2)', [
        otherAccount,
        'Other',
      ]);
      await server.server.runs.db.query(
        `INSERT INTO api_keys (id, account_id, kind, key_hash, key_hint) VALUES ($1, $2, 'user', $3, 'x')`,
        [randomUUID(), otherAccount, hashKey(otherKey)],
      );
      const headers = { authorization: `Bearer ${otherKey}`, 'x-service-account': otherAccount };
      for (const path of [
        `/v1/check-sessions/${id}`,
        `/v2/check-sessions/${id}/completion?maxWaitSeconds=1`,
      ]) {
        expect((await fetch(`${server.url}${path}`, { headers })).status).toBe(404);
      }
      expect(
        (await fetch(`${server.url}/v1/check-sessions/${id}/cancel`, { method: 'POST', headers })).status,
      ).toBe(404);
      expect((await fetch(`${server.url}/v1/private-locations/${location.id}`, { headers })).status).toBe(
        404,
      );
    });
  });

  describe('test sessions', () => {
    it('runs the selected checks at the chosen location as TEST_NO_RECORD, and groups their errors', async () => {
      const home = await fresh();
      const elsewhere = await fresh();
      const tag = `ts${n}`;
      const a = await createApiCheck(server, { name: 'a', tags: [tag], privateLocations: [home.slugName] });
      await createApiCheck(server, { name: 'b', tags: [tag], privateLocations: [home.slugName] });
      const created = await server.api('POST', '/v1/test-sessions/trigger', {
        name: 'deploy 42',
        location: elsewhere.slugName,
        refresh: true,
        target: { matchTags: [[tag]] },
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        name: 'deploy 42',
        status: 'RUNNING',
        errorGroupIds: [],
        refresh: true,
      });
      expect(created.body.checkSessions).toHaveLength(2);
      for (const session of created.body.checkSessions) {
        expect(session).toMatchObject({ runSource: 'TEST_NO_RECORD', runLocations: [elsewhere.slugName] });
      }
      const id = created.body.testSessionId;
      expect((await server.api('GET', `/v1/test-sessions/${id}/completion?maxWaitSeconds=1`)).status).toBe(
        408,
      );

      const agent = await TestAgent.open(server.url, elsewhere.key, server.accountId, 'route-agent');
      const runs = await lease(elsewhere.slugName);
      expect(runs).toHaveLength(2);
      for (const [i, run] of runs.entries()) {
        const failure = `connect ECONNREFUSED 127.0.0.1:${8080 + i} at 2026-04-01T10:00:0${i}Z`;
        const result = run.check_id === a ? apiResult({ failed: failure }) : apiResult();
        await agent.postResult({ runId: run.id, attempt: 1 } as never, result);
        // doubleCheck (the default) retries a failure once, at once.
        if (run.check_id === a) {
          const [retry] = await lease(elsewhere.slugName);
          await agent.postResult(
            { runId: retry?.id, attempt: 2 } as never,
            apiResult({ failed: failure.replace('8080', '9090') }),
          );
        }
      }
      agent.close();
      const done = await server.api('GET', `/v1/test-sessions/${id}/completion`);
      expect(done.status).toBe(200);
      expect(done.body.status).toBe('FAILED');
      expect(done.body.errorGroupIds).toHaveLength(1);
      const group = await server.api('GET', `/v1/error-groups/${done.body.errorGroupIds[0]}`);
      const cleaned = 'connect ECONNREFUSED <ip> at <time>';
      expect(group.body).toMatchObject({
        checkId: a,
        cleanedErrorMessage: cleaned,
        errorHash: errorHashOf(cleaned),
      });
      const failing = done.body.checkSessions.find((s: { checkId: string }) => s.checkId === a);
      expect(failing.results.map((r: { errorGroupIds: string[] }) => r.errorGroupIds)).toEqual([
        done.body.errorGroupIds,
        done.body.errorGroupIds,
      ]);
      // TEST_NO_RECORD: the check's history does not show test-session results.
      expect((await server.api('GET', `/v1/check-results/${a}?resultType=ALL`)).body).toEqual([]);
    });

    it('validates the body and the location, and cancels', async () => {
      const location = await fresh();
      const checkId = await createApiCheck(server, {
        privateLocations: [location.slugName],
        activated: false,
      });
      const bad = await server.api('POST', '/v1/test-sessions/trigger', {
        name: 'x'.repeat(151),
        location: 'nowhere',
      });
      expect(bad.status).toBe(400);
      expect(bad.body.attributes.errors).toEqual([expect.objectContaining({ field: 'name' })]);
      const nowhere = await server.api('POST', '/v1/test-sessions/trigger', {
        name: 'ok',
        location: 'nowhere',
        target: { checkId: [checkId] },
      });
      expect(nowhere.status).toBe(400);
      expect(nowhere.body.attributes.errors).toEqual([expect.objectContaining({ field: 'location' })]);
      const region = await server.api('POST', '/v1/test-sessions/trigger', {
        name: 'in a region',
        location: 'eu-west-1',
        target: { checkId: [checkId] },
      });
      expect(region.status).toBe(201);
      expect(region.body.checkSessions[0].runLocations).toEqual(['eu-west-1']);
      const id = region.body.testSessionId;
      const cancelled = await server.api('POST', `/v1/test-sessions/${id}/cancel`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.status).toBe('CANCELLED');
      expect(cancelled.body.checkSessions[0].status).toBe('CANCELLED');
      expect((await server.api('GET', `/v1/test-sessions/${id}`)).body.status).toBe('CANCELLED');
      expect((await server.api('GET', `/v1/test-sessions/${randomUUID()}`)).status).toBe(404);
    });
  });

  describe('private locations', () => {
    it('creates a location with one key shown once, keeps at most two active keys, and deletes it', async () => {
      const created = await server.api('POST', '/v1/private-locations', {
        name: 'Office',
        slugName: 'office-1',
        icon: 'home',
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        name: 'Office',
        slugName: 'office-1',
        icon: 'home',
        agentCount: 0,
      });
      expect(created.body.keys).toHaveLength(1);
      expect(created.body.keys[0].rawKey).toMatch(new RegExp(`^pl_${server.accountId}\\.office-1\\.`));
      const id = created.body.id;
      const read = await server.api('GET', `/v1/private-locations/${id}`);
      expect(read.body.keys[0].rawKey).toBeUndefined();
      expect(read.body.keys[0].maskedKey).toBe(created.body.keys[0].maskedKey);
      expect(
        (await server.api('GET', '/v1/private-locations')).body.map((l: { id: string }) => l.id),
      ).toContain(id);

      expect(
        (await server.api('POST', '/v1/private-locations', { name: 'Again', slugName: 'office-1' })).status,
      ).toBe(409);
      const badSlug = await server.api('POST', '/v1/private-locations', { name: 'Bad', slugName: 'Not OK' });
      expect(badSlug.status).toBe(400);
      expect(badSlug.body.attributes.errors[0].field).toBe('slugName');

      const second = await server.api('POST', `/v1/private-locations/${id}/keys`);
      expect(second.status).toBe(201);
      expect(second.body.rawKey).toMatch(/^pl_/);
      expect((await server.api('POST', `/v1/private-locations/${id}/keys`)).status).toBe(409);
      expect((await server.api('DELETE', `/v1/private-locations/${id}/keys/${second.body.id}`)).status).toBe(
        204,
      );
      expect((await server.api('DELETE', `/v1/private-locations/${id}/keys/${second.body.id}`)).status).toBe(
        404,
      );
      expect((await server.api('POST', `/v1/private-locations/${id}/keys`)).status).toBe(201);

      expect((await server.api('DELETE', `/v1/private-locations/${id}`)).status).toBe(204);
      expect((await server.api('GET', `/v1/private-locations/${id}`)).status).toBe(404);
      expect((await server.api('DELETE', `/v1/private-locations/${id}`)).status).toBe(404);
    });

    it('serves the metrics sampled every minute, within the 15-day window', async () => {
      const location = await fresh();
      const checkId = await createApiCheck(server, {
        privateLocations: [location.slugName],
        activated: false,
      });
      clock.set('2026-04-02T08:00:30.000Z');
      await server.server.runs.metricsTick();
      await server.api('POST', '/v2/check-sessions/trigger', { target: { checkId: [checkId] } });
      await server.api('POST', '/v2/check-sessions/trigger', { target: { checkId: [checkId] } });
      clock.advance(60_000);
      await server.server.runs.metricsTick();
      await server.server.runs.metricsTick(); // the same minute: sampled once
      const seconds = Math.floor(clock.now().getTime() / 1000);
      const metrics = await server.api(
        'GET',
        `/v1/private-locations/${location.id}/metrics?from=${seconds - 3600}&to=${seconds}`,
      );
      expect(metrics.status).toBe(200);
      expect(metrics.body).toEqual({
        timestamps: ['2026-04-02T08:00:00.000Z', '2026-04-02T08:01:00.000Z'],
        queueSize: [0, 2],
        oldestScheduledCheckRun: [0, 60],
      });

      const query = (q: string) => server.api('GET', `/v1/private-locations/${location.id}/metrics?${q}`);
      const reversed = await query(`from=${seconds}&to=${seconds - 60}`);
      expect(reversed.status).toBe(400);
      expect(reversed.body.attributes.errors).toEqual([
        { field: 'query.from', message: 'must be less than to' },
      ]);
      const old = await query(`from=${seconds - 15 * 86_400}&to=${seconds}`);
      expect(old.status).toBe(400);
      expect(old.body.attributes.errors).toEqual([
        { field: 'query.from', message: 'must be less than 15 days ago' },
      ]);
      expect((await query(`from=${seconds - 15 * 86_400 + 60}&to=${seconds}`)).status).toBe(200);
      const missing = await query(`to=${seconds}`);
      expect(missing.status).toBe(400);
      expect(missing.body.attributes.errors[0].field).toBe('query.from');
    });
  });
});

describe('error messages', () => {
  it('are cleaned of numbers, ids, times and addresses before they are hashed', () => {
    expect(cleanErrorMessage('connect ECONNREFUSED 10.0.0.7:5432')).toBe('connect ECONNREFUSED <ip>');
    expect(cleanErrorMessage('connect ECONNREFUSED [::1]:8080')).toBe('connect ECONNREFUSED <ip>');
    expect(
      cleanErrorMessage('run 3f2b8a1c-1d2e-4f5a-9b8c-7d6e5f4a3b2c failed at 2026-04-01T10:00:00.123Z'),
    ).toBe('run <id> failed at <time>');
    expect(cleanErrorMessage('Expected status 200 but got 503 after 5000ms (trace 5f3a9c0d1e2b4a6c)')).toBe(
      'Expected status <n> but got <n> after <n>ms (trace <hex>)',
    );
    expect(cleanErrorMessage('socket hang up on localhost:4040 over HTTP2 and IPv4')).toBe(
      'socket hang up on localhost over HTTP2 and IPv4',
    );
    expect(cleanErrorMessage('  many\n  spaces  ')).toBe('many spaces');
  });

  it('hash equal when only the varying parts differ', () => {
    const a = errorHashOf(cleanErrorMessage('timeout after 30012 ms to 192.168.1.5:443'));
    const b = errorHashOf(cleanErrorMessage('timeout after 29877 ms to 192.168.1.9:8443'));
    const c = errorHashOf(cleanErrorMessage('certificate has expired'));
    expect(a).toBe(b);
    expect(a).not.toBe(c);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });
});
