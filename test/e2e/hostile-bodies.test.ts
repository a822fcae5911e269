/**
 * End to end: responses that once lost their result (issue 11) — a body larger than the API's request limit, a
 * JSON body with a lone surrogate, a body with NUL characters — run on a real agent against a real control plane,
 * and each session ends with its true status and its result kept.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAgent, type TestAgent } from '../support/agent.js';
import { type TestServer as HttpTarget, startHttpServer } from '../support/http-servers.js';
import { apiCheckAt, completed, FAST_RUNS, trigger } from '../support/runs.js';
import {
  createApiCheck,
  createLocation,
  STORES,
  startTestServer,
  type TestServer,
} from '../support/server.js';

const LARGE = JSON.stringify({ status: 'ok', items: 'x'.repeat(6_700_000) });
const BODIES: Record<string, string> = {
  '/large': LARGE,
  '/surrogate': '{"status":"\\ud800"}',
  '/nul': '{"status":"ok"}\u0000\u0000',
};

let target: HttpTarget;
beforeAll(async () => {
  target = await startHttpServer((request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end(BODIES[request.url ?? ''] ?? '{}');
  });
});
afterAll(() => target?.close());

const jsonStatusIs = (value: string) => ({
  request: {
    method: 'GET',
    assertions: [
      { source: 'JSON_BODY', comparison: 'EQUALS', target: value, property: '$.status', regex: null },
    ],
  },
});

describe.each(STORES)('hostile response bodies keep their results (%s)', (store) => {
  let server: TestServer;
  let agent: TestAgent;
  beforeAll(async () => {
    server = await startTestServer(store, { runs: FAST_RUNS });
    const location = await createLocation(server, 'hostile');
    agent = await startTestAgent({ url: server.url, key: location.key });
  });
  afterAll(async () => {
    await agent?.agent.stop();
    await server?.close();
  });

  const run = async (path: string, expected: string) => {
    const url = target.url(path);
    const fields = jsonStatusIs(expected);
    const checkId = await createApiCheck(
      server,
      apiCheckAt(url, { privateLocations: ['hostile'], request: { ...fields.request, url } }),
    );
    const [sessionId] = await trigger(server, [checkId]);
    return completed(server, sessionId ?? '', 30_000);
  };

  it('keeps the result of a 6.7 MB JSON response', async () => {
    const session = await run('/large', 'ok');
    expect(session.status).toBe('PASSED');
    expect(session.results).toHaveLength(1);
    expect(session.results[0].apiCheckResult.response.body).toHaveLength(LARGE.length);
  });

  it('ends a check whose JSON holds a lone surrogate with its true status, the character replaced and noted', async () => {
    const session = await run('/surrogate', 'ok');
    expect(session.status).toBe('FAILED');
    const [result] = session.results;
    // The body is text with an escape; the value JSON_BODY read from it is the lone surrogate.
    expect(result.apiCheckResult.response.body).toBe('{"status":"\\ud800"}');
    expect(result.apiCheckResult.assertions[0].actual).toBe('\ufffd');
    expect(result.notes).toEqual([expect.stringContaining('replaced by U+FFFD')]);
  });

  it('ends a check whose body holds NUL characters with its true status (not TIMED_OUT), the body kept', async () => {
    const session = await run('/nul', 'ok');
    expect(session.status).toBe('FAILED');
    // Text with control bytes is binary in all but name: kept as base64, byte for byte.
    const { response } = session.results[0].apiCheckResult;
    expect(response.bodyEncoding).toBe('base64');
    expect(Buffer.from(response.body, 'base64').toString()).toBe(BODIES['/nul']);
  });
});
