import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AGENT_PATHS } from '../../../src/protocol/index.js';
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

  /** A triggered session of a fresh check, its one run leased to `agentId`. */
  const leasedRun = async (agentId = 'holder') => {
    const checkId = await createApiCheck(server, { privateLocations: [location.slugName], activated: false });
    const created = await server.api('POST', '/v2/check-sessions/trigger', {
      target: { checkId: [checkId] },
    });
    const sessionId: string = created.body.checkSessions[0].checkSessionId;
    const [run] = await leaseRuns(server.server.runs.db, {
      accountId: server.accountId,
      location: location.slugName,
      agentId,
      credits: { light: 1, browser: 0 },
      kinds: ['API'],
      now: clock.now(),
      leaseTtlMs: 45_000,
    });
    if (!run) throw new Error('nothing to lease');
    return { sessionId, message: { runId: run.id, attempt: run.attempt } as never };
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
});
