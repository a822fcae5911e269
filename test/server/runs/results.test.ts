import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AGENT_PATHS, PROTOCOL_LIMITS } from '../../../src/protocol/index.js';
import { leaseRuns } from '../../../src/server/queue/lease.js';
import {
  createApiCheck,
  createLocation,
  STORES,
  startTestServer,
  TestClock,
  type TestServer,
} from '../../support/server.js';
import { apiResult, TestAgent } from './agent-client.js';

/** A JSON text nested `depth` levels deep: `[[[…]]]`. */
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe.each(STORES)('results the control plane keeps (%s)', (store) => {
  let server: TestServer;
  const clock = new TestClock();
  let location: Awaited<ReturnType<typeof createLocation>>;
  let agent: TestAgent;
  let n = 0;

  beforeAll(async () => {
    server = await startTestServer(store, { runs: { background: false, clock: clock.now } });
  });
  beforeEach(async () => {
    n += 1;
    location = await createLocation(server, `results-${n}`);
    agent?.close();
    agent = await TestAgent.open(server.url, location.key, server.accountId, 'holder');
  });
  afterAll(async () => {
    agent?.close();
    await server?.close();
  });

  /** Leases the queued runs of the location to `agentId`; their run messages, as far as results need them. */
  const lease = async (agentId = 'holder') => {
    const runs = await leaseRuns(server.server.runs.db, {
      accountId: server.accountId,
      location: location.slugName,
      agentId,
      credits: { light: 100, browser: 0 },
      kinds: ['API'],
      now: clock.now(),
      leaseTtlMs: 45_000,
    });
    return runs.map((run) => ({ runId: run.id, attempt: run.attempt }) as never);
  };
  /** A triggered session of a fresh check (with `fields`), its one run leased to `agentId`. */
  const leasedRun = async (agentId = 'holder', fields: Record<string, unknown> = {}) => {
    const checkId = await createApiCheck(server, {
      privateLocations: [location.slugName],
      activated: false,
      ...fields,
    });
    const created = await server.api('POST', '/v2/check-sessions/trigger', {
      target: { checkId: [checkId] },
    });
    const sessionId: string = created.body.checkSessions[0].checkSessionId;
    const [message] = await lease(agentId);
    if (!message) throw new Error('nothing to lease');
    return { checkId, sessionId, message };
  };
  const session = async (id: string) => (await server.api('GET', `/v1/check-sessions/${id}`)).body;
  /** An API result whose response body is `body`. */
  const withBody = (body: string, failed?: string) => {
    const result = apiResult(failed ? { failed } : {});
    const detail = result.apiCheckResult as Record<string, unknown>;
    detail.response = { status: 200, statusText: 'OK', body, bodyEncoding: 'utf8', headers: {} };
    return result;
  };

  it('keeps a result with a 7 MB body (larger than any API request body)', async () => {
    const { sessionId, message } = await leasedRun();
    const body = JSON.stringify({ items: 'x'.repeat(7 * 1024 * 1024) });
    const posted = await agent.postResult(message, withBody(body));
    expect(posted).toEqual({ status: 200, body: { recorded: true, duplicate: false } });
    const record = await session(sessionId);
    expect(record.status).toBe('PASSED');
    expect(record.results[0].apiCheckResult.response.body).toBe(body);
  });

  it('keeps a result holding a lone surrogate or NUL, replaced by U+FFFD and noted, with its true status', async () => {
    const surrogate = await leasedRun();
    const posted = await agent.postResult(surrogate.message, withBody('{"name":"\ud800x"}'));
    expect(posted).toEqual({ status: 200, body: { recorded: true, duplicate: false } });
    const kept = (await session(surrogate.sessionId)).results[0];
    expect(kept.apiCheckResult.response.body).toBe('{"name":"\ufffdx"}');
    expect(kept.notes).toEqual([expect.stringContaining('1 character(s) the store cannot keep')]);

    const nul = await leasedRun();
    const failed = withBody('a\u0000b\u0000', 'assertion failed: body contains "\u0000"');
    expect((await agent.postResult(nul.message, failed)).status).toBe(200);
    const [first] = (await session(nul.sessionId)).results;
    expect(first).toMatchObject({ hasErrors: true, resultType: 'ATTEMPT' }); // doubleCheck retries it
    expect(first.apiCheckResult.response.body).toBe('a\ufffdb\ufffd');
    expect(first.apiCheckResult.requestError).toBe('assertion failed: body contains "\ufffd"');
    expect(first.notes[0]).toContain('3 character(s)');
  });

  it('refuses a result without the flags or with impossible times, naming the field', async () => {
    const { message } = await leasedRun();
    const { isDegraded: _, ...noFlag } = apiResult();
    const missing = await agent.postResult(message, noFlag);
    expect(missing.status).toBe(400);
    expect(missing.body.attributes.errors).toEqual([expect.objectContaining({ field: 'result.isDegraded' })]);

    const start = Date.parse('2026-11-25T10:00:00Z');
    const at = (ms: number) => new Date(start + ms).toISOString();
    const cases: [Record<string, unknown>, string][] = [
      [{ startedAt: at(0), stoppedAt: at(-5000) }, 'result.stoppedAt'],
      [{ startedAt: at(0), stoppedAt: at(10 * 86_400_000) }, 'result.stoppedAt'],
      [{ startedAt: at(0), stoppedAt: at(100), responseTime: 1e12 }, 'result.responseTime'],
      [{ startedAt: 'yesterday', stoppedAt: at(100) }, 'result.startedAt'],
    ];
    for (const [fields, field] of cases) {
      const refused = await agent.postResult(message, { ...apiResult(), ...fields });
      expect(refused.status, field).toBe(400);
      expect(refused.body.attributes.errors).toContainEqual(expect.objectContaining({ field }));
    }
  });

  it('refuses a result of a run leased to another agent, or of another attempt (409)', async () => {
    const theirs = await leasedRun('someone-else');
    const posted = await agent.postResult(theirs.message, apiResult({ failed: 'forged' }));
    expect(posted.status).toBe(409);
    expect(posted.body.message).toContain('leased to another agent');

    const mine = await leasedRun();
    const wrong = { ...(mine.message as object), attempt: 3 } as never;
    expect((await agent.postResult(wrong, apiResult())).status).toBe(409);
    expect((await session(mine.sessionId)).status).toBe('RUNNING');
    expect((await agent.postResult(mine.message, apiResult())).status).toBe(200);
  });

  it('answers 400 to JSON nested thousands of levels deep, on public and agent routes', async () => {
    const post = (path: string, headers: Record<string, string>, body: string) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body,
      });
    const agentHeaders = { authorization: `Bearer ${location.key}`, 'x-service-account': server.accountId };
    for (const depth of [2_000, 100_000]) {
      const deep = `{"name":"x","checkType":"API","request":${nested(depth)}}`;
      const publicAnswer = await post('/v1/checks', server.headers, deep);
      expect(publicAnswer.status).toBe(400);
      expect(((await publicAnswer.json()) as { message: string }).message).toContain(
        'nests deeper than 100 levels',
      );
      const agentAnswer = await post(
        AGENT_PATHS.results,
        agentHeaders,
        `{"runId":"r","result":${nested(depth)}}`,
      );
      expect(agentAnswer.status).toBe(400);
    }
    // The server still answers.
    expect((await server.api('GET', '/v1/checks')).status).toBe(200);
  });

  it('answers 400 naming the field to a lone surrogate in a request body', async () => {
    const answer = await server.api('POST', '/v1/checks', {
      checkType: 'API',
      name: 'bad \ud800 name',
      request: { url: 'http://127.0.0.1:9/', method: 'GET' },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.attributes.errors).toContainEqual({
      field: 'name',
      message: 'must be well-formed Unicode: a lone surrogate (\\ud800-\\udfff) is not allowed',
    });
    const group = await server.api('POST', '/v1/check-groups', { name: '\udc00', locations: [] });
    expect(group.status).toBe(400);
  });

  describe('in batches: POST /v1/agent/results/batch', () => {
    /** A check whose sessions are one run each: no retry after a failure. */
    const SINGLE = { doubleCheck: false };

    it('answers each result of a mixed batch on its own, in its place, and records the good ones', async () => {
      const good = await leasedRun('holder', SINGLE);
      const recordedBefore = await leasedRun('holder', SINGLE);
      expect((await agent.postResult(recordedBefore.message, apiResult())).status).toBe(200);
      const wrongAttempt = await leasedRun('holder', SINGLE);
      const theirs = await leasedRun('someone-else', SINGLE);
      const noFlag = await leasedRun('holder', SINGLE);
      const { isDegraded: _, ...withoutFlag } = apiResult();
      const failed = await leasedRun('holder', SINGLE);

      const answer = await agent.postBatch([
        agent.upload(good.message, apiResult()),
        agent.upload(recordedBefore.message, apiResult()),
        agent.upload({ ...(wrongAttempt.message as object), attempt: 3 } as never, apiResult()),
        agent.upload(theirs.message, apiResult({ failed: 'forged' })),
        agent.upload({ runId: 'no-such-run', attempt: 1 } as never, apiResult()),
        { runId: 'half an upload' },
        agent.upload(noFlag.message, withoutFlag),
        agent.upload(failed.message, apiResult({ failed: 'connect ECONNREFUSED' })),
      ]);

      expect(answer.status).toBe(200);
      const [ok, duplicate, attempt, leasedToOther, unknown, malformed, flagless, failure] =
        answer.body.results;
      expect(answer.body.results).toHaveLength(8);
      expect(ok).toEqual({ statusCode: 200, recorded: true, duplicate: false });
      expect(duplicate).toEqual({ statusCode: 200, recorded: false, duplicate: true });
      expect(attempt).toMatchObject({ statusCode: 409, attributes: { attempt: 1, index: 2 } });
      expect(leasedToOther).toMatchObject({
        statusCode: 409,
        message: expect.stringContaining('another agent'),
      });
      expect(unknown).toMatchObject({ statusCode: 404, attributes: { index: 4 } });
      expect(malformed.statusCode).toBe(400);
      expect(malformed.attributes.index).toBe(5);
      expect(malformed.attributes.errors).toContainEqual(
        expect.objectContaining({ field: 'results[5].attempt' }),
      );
      expect(flagless.statusCode).toBe(400);
      expect(flagless.attributes.errors).toEqual([
        expect.objectContaining({ field: 'results[6].result.isDegraded' }),
      ]);
      expect(failure).toEqual({ statusCode: 200, recorded: true, duplicate: false });

      expect((await session(good.sessionId)).status).toBe('PASSED');
      expect((await session(failed.sessionId)).status).toBe('FAILED');
      expect((await session(recordedBefore.sessionId)).results).toHaveLength(1);
      for (const refused of [wrongAttempt, theirs, noFlag]) {
        expect((await session(refused.sessionId)).status).toBe('RUNNING');
      }
      // What was refused for its own reasons can still be reported rightly.
      expect((await agent.postResult(wrongAttempt.message, apiResult())).body).toEqual({
        recorded: true,
        duplicate: false,
      });
      expect(
        (await agent.postBatch([agent.upload(noFlag.message, apiResult())])).body.results[0].statusCode,
      ).toBe(200);
    });

    it('keeps the results of a batch that hold NUL or a lone surrogate, replaced and noted, beside the others', async () => {
      const [nul, plain, surrogate, flagless] = [
        await leasedRun('holder', SINGLE),
        await leasedRun('holder', SINGLE),
        await leasedRun('holder', SINGLE),
        await leasedRun('holder', SINGLE),
      ];
      const { isDegraded: _, ...withoutFlag } = withBody('\ud800');
      const answer = await agent.postBatch([
        agent.upload(nul.message, withBody('a\u0000b')),
        agent.upload(plain.message, withBody('plain')),
        agent.upload(surrogate.message, withBody('{"name":"\udc00"}')),
        agent.upload(flagless.message, withoutFlag),
      ]);
      expect(answer.body.results.map((r: { statusCode: number }) => r.statusCode)).toEqual([
        200, 200, 200, 400,
      ]);
      // Made storable, a result is still validated: the one without its flag is refused, not recorded.
      expect(answer.body.results[3].attributes.errors).toEqual([
        expect.objectContaining({ field: 'results[3].result.isDegraded' }),
      ]);
      const kept = async (run: { sessionId: string }) => (await session(run.sessionId)).results[0];
      expect((await kept(nul)).apiCheckResult.response.body).toBe('a\ufffdb');
      expect((await kept(nul)).notes).toEqual([
        expect.stringContaining('1 character(s) the store cannot keep'),
      ]);
      expect((await kept(plain)).apiCheckResult.response.body).toBe('plain');
      expect((await kept(plain)).notes ?? []).toEqual([]);
      expect((await kept(surrogate)).apiCheckResult.response.body).toBe('{"name":"\ufffd"}');
      expect((await session(flagless.sessionId)).status).toBe('RUNNING');
    });

    it('records two copies of one run in one batch once: the first, then a duplicate', async () => {
      const { sessionId, message } = await leasedRun('holder', SINGLE);
      const answer = await agent.postBatch([
        agent.upload(message, apiResult({ failed: 'first copy' })),
        agent.upload(message, apiResult()),
      ]);
      expect(answer.body.results).toEqual([
        { statusCode: 200, recorded: true, duplicate: false },
        { statusCode: 200, recorded: false, duplicate: true },
      ]);
      const record = await session(sessionId);
      expect(record.status).toBe('FAILED');
      expect(record.results).toHaveLength(1);
    });

    it('retries, finishes sessions and moves alert states as single uploads do', async () => {
      const first = await leasedRun('holder', { doubleCheck: true });
      const second = await leasedRun('holder', { doubleCheck: true });
      const failing = apiResult({ failed: 'connect ECONNREFUSED' });
      const attempts = await agent.postBatch([
        agent.upload(first.message, failing),
        agent.upload(second.message, apiResult()),
      ]);
      expect(attempts.body.results.map((r: { statusCode: number }) => r.statusCode)).toEqual([200, 200]);
      expect((await session(first.sessionId)).status).toBe('RUNNING');
      expect((await session(second.sessionId)).status).toBe('PASSED');

      const [retry] = await lease();
      expect(retry).toMatchObject({ attempt: 2 });
      await agent.postBatch([agent.upload(retry as never, failing)]);
      const record = await session(first.sessionId);
      expect(record.status).toBe('FAILED');
      expect(record.results.map((r: { resultType: string }) => r.resultType).sort()).toEqual([
        'ATTEMPT',
        'FINAL',
      ]);
      const states = await Promise.all(
        [first, second].map(
          async (s) => (await server.api('GET', `/v1/checks/${s.checkId}/alert-state`)).body,
        ),
      );
      expect(states.map((s) => s.state)).toEqual(['FAILING', 'PASSING']);
    });

    it('keeps the others when the store refuses one result of a batch', async () => {
      const runs = [
        await leasedRun('holder', SINGLE),
        await leasedRun('holder', SINGLE),
        await leasedRun('holder', SINGLE),
      ];
      const poisoned = runs[1] as (typeof runs)[number];
      const db = server.server.context.db;
      // The store itself refuses that one run's result, as a full disk or a broken row would.
      await db.exec(`
        CREATE TABLE poisoned_runs (run_id text PRIMARY KEY);
        CREATE FUNCTION refuse_poisoned() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF EXISTS (SELECT 1 FROM poisoned_runs WHERE run_id = NEW.run_id) THEN
            RAISE EXCEPTION 'refused by the test';
          END IF;
          RETURN NEW;
        END $$;
        CREATE TRIGGER refuse_poisoned BEFORE INSERT ON check_results
          FOR EACH ROW EXECUTE FUNCTION refuse_poisoned();
      `);
      try {
        await db.query('INSERT INTO poisoned_runs (run_id) VALUES ($1)', [
          (poisoned.message as { runId: string }).runId,
        ]);
        const answer = await agent.postBatch(runs.map((r) => agent.upload(r.message, apiResult())));
        expect(answer.body.results.map((r: { statusCode: number }) => r.statusCode)).toEqual([200, 500, 200]);
        expect(answer.body.results[1].attributes).toEqual({ index: 1 });
        const statuses = await Promise.all(runs.map(async (r) => (await session(r.sessionId)).status));
        expect(statuses).toEqual(['PASSED', 'RUNNING', 'PASSED']);
      } finally {
        await db.exec(
          'DROP TRIGGER refuse_poisoned ON check_results; DROP FUNCTION refuse_poisoned(); DROP TABLE poisoned_runs;',
        );
      }
      expect((await agent.postBatch([agent.upload(poisoned.message, apiResult())])).body.results[0]).toEqual({
        statusCode: 200,
        recorded: true,
        duplicate: false,
      });
    });

    it('refuses what is not a batch as a whole (400): no list, an empty one, or too many results', async () => {
      const { message } = await leasedRun('holder', SINGLE);
      const many = Array.from({ length: PROTOCOL_LIMITS.resultBatchSize + 1 }, () =>
        agent.upload(message, apiResult()),
      );
      for (const results of [undefined, [], many, 'results']) {
        expect((await agent.postBatch(results)).status).toBe(400);
      }
    });
  });
});
