import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeApi, executeUrl } from '../../../src/executors/http/index.js';
import { startHttpServer, type TestServer } from '../../support/http-servers.js';
import { apiCheck, apiResult, runContext, urlCheck } from './fixtures.js';

let server: TestServer;

beforeAll(async () => {
  server = await startHttpServer((req, res) => {
    const status = /^\/status\/(\d+)/.exec(req.url ?? '')?.[1];
    if (status) {
      res.writeHead(Number(status), { 'content-type': 'text/plain' });
      return res.end(`status ${status}`);
    }
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'req-42' });
    res.end(JSON.stringify({ user: { name: 'Ada', roles: ['admin', 'dev'] }, count: 3 }));
  });
});
afterAll(() => server.close());

const assertion = (fields: Record<string, unknown>) => ({ property: '', regex: null, ...fields });

describe('status codes', () => {
  it('passes a 200 and records status, text and headers', async () => {
    const attempt = await executeApi(apiCheck({ url: server.url('/status/200') }), runContext());
    const result = apiResult(attempt);
    expect(attempt).toMatchObject({ hasErrors: false, hasFailures: false, networkError: false, error: null });
    expect(result.response).toMatchObject({
      status: 200,
      statusText: 'OK',
      body: 'status 200',
      bodyEncoding: 'utf8',
    });
    expect(result.response?.headers['content-type']).toBe('text/plain');
  });

  it.each([
    ['API', 404],
    ['API', 500],
    ['URL', 503],
  ])('fails a %s check without assertions on status %i', async (kind, status) => {
    const request = { url: server.url(`/status/${status}`) };
    const attempt =
      kind === 'API'
        ? await executeApi(apiCheck(request), runContext())
        : await executeUrl(urlCheck(request), runContext());
    expect(attempt).toMatchObject({ hasErrors: false, hasFailures: true, networkError: false });
    expect(attempt.error).toBe(`status ${status} is 400 or above`);
    expect(apiResult(attempt).jobLog).toContainEqual(
      expect.objectContaining({ level: 'ERROR', msg: `status ${status} is 400 or above` }),
    );
  });

  it('lets assertions decide instead of the 400 rule', async () => {
    const check = apiCheck({
      url: server.url('/status/404'),
      assertions: [assertion({ source: 'STATUS_CODE', comparison: 'EQUALS', target: '404' })],
    });
    const attempt = await executeApi(check, runContext());
    expect(attempt).toMatchObject({ hasErrors: false, hasFailures: false, error: null });
    expect(apiResult(attempt).assertions[0]).toMatchObject({ actual: 404, error: null });
  });

  it('runs a URL monitor status assertion', async () => {
    const check = urlCheck({
      url: server.url('/status/204'),
      assertions: [assertion({ source: 'STATUS_CODE', comparison: 'LESS_THAN', target: '300' })],
    });
    const attempt = await executeUrl(check, runContext());
    expect(attempt.hasFailures).toBe(false);
    expect(apiResult(attempt).response).toMatchObject({ status: 204, body: '' });
  });
});

describe('assertions on the response', () => {
  it('evaluates JSON, header, text and response-time assertions that hold', async () => {
    const check = apiCheck({
      url: server.url('/data'),
      assertions: [
        assertion({ source: 'JSON_BODY', property: '$.user.name', comparison: 'EQUALS', target: 'Ada' }),
        assertion({ source: 'JSON_BODY', property: '$.count', comparison: 'GREATER_THAN', target: '2' }),
        assertion({ source: 'HEADERS', property: 'X-Request-Id', comparison: 'EQUALS', target: 'req-42' }),
        assertion({ source: 'TEXT_BODY', comparison: 'CONTAINS', target: '"roles"' }),
        assertion({ source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '10000' }),
      ],
    });
    const attempt = await executeApi(check, runContext());
    expect(apiResult(attempt).assertions.map((a) => a.error)).toEqual([null, null, null, null, null]);
    expect(attempt).toMatchObject({ hasFailures: false, hasErrors: false, error: null });
  });

  it('fails on the first failing assertion and says why', async () => {
    const check = apiCheck({
      url: server.url('/data'),
      assertions: [
        assertion({ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }),
        assertion({ source: 'JSON_BODY', property: '$.user.name', comparison: 'EQUALS', target: 'Grace' }),
        assertion({ source: 'HEADERS', property: 'x-request-id', comparison: 'EQUALS', target: 'other' }),
      ],
    });
    const attempt = await executeApi(check, runContext());
    const [status, json, header] = apiResult(attempt).assertions;
    expect(status?.error).toBeNull();
    expect(json).toMatchObject({ actual: 'Ada' });
    expect(json?.error).toEqual(expect.any(String));
    expect(header?.error).toEqual(expect.any(String));
    expect(attempt).toMatchObject({ hasFailures: true, hasErrors: false, error: json?.error });
  });
});
