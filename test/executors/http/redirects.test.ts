import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { executeApi, executeUrl } from '../../../src/executors/http/index.js';
import { type ReceivedRequest, startRecordingServer, type TestServer } from '../../support/http-servers.js';
import { apiCheck, apiResult, runContext, urlCheck } from './fixtures.js';

let server: TestServer & { received: ReceivedRequest[] };
let other: TestServer & { received: ReceivedRequest[] };

beforeAll(async () => {
  other = await startRecordingServer((_req, res) => res.end('other origin'));
  server = await startRecordingServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const redirect = (status: number, location: string) => {
      res.writeHead(status, { location });
      res.end();
    };
    const hop = /^\/chain\/(\d+)$/.exec(url.pathname);
    if (hop) {
      const n = Number(hop[1]);
      return n < Number(url.searchParams.get('to'))
        ? redirect(302, `/chain/${n + 1}${url.search}`)
        : res.end('end');
    }
    if (url.pathname === '/loop/a') return redirect(301, '/loop/b');
    if (url.pathname === '/loop/b') return redirect(301, '/loop/a');
    if (url.pathname === '/see-other') return redirect(303, '/result');
    if (url.pathname === '/temporary') return redirect(307, '/result');
    if (url.pathname === '/found') return redirect(302, '/result');
    if (url.pathname === '/away') return redirect(302, other.url('/landing'));
    res.end(`final ${req.method}`);
  });
});
afterAll(async () => {
  await server.close();
  await other.close();
});
beforeEach(() => {
  server.received.length = 0;
  other.received.length = 0;
});

describe('redirects', () => {
  it('follows redirects to the final response', async () => {
    const attempt = await executeUrl(urlCheck({ url: server.url('/chain/0?to=3') }), runContext());
    expect(attempt).toMatchObject({ hasErrors: false, hasFailures: false });
    expect(apiResult(attempt).response?.status).toBe(200);
    expect(server.received.map((r) => r.url)).toEqual([
      '/chain/0?to=3',
      '/chain/1?to=3',
      '/chain/2?to=3',
      '/chain/3?to=3',
    ]);
  });

  it('follows 10 redirects but fails on an 11th', async () => {
    const ten = await executeApi(apiCheck({ url: server.url('/chain/0?to=10') }), runContext());
    expect(ten.hasErrors).toBe(false);
    expect(apiResult(ten).response?.body).toBe('end');

    const eleven = await executeApi(apiCheck({ url: server.url('/chain/0?to=11') }), runContext());
    expect(eleven).toMatchObject({ hasErrors: true, networkError: false });
    expect(eleven.error).toMatch(/too many redirects/);
    expect(apiResult(eleven).requestError).toBe(eleven.error);
  });

  it('fails a redirect loop', async () => {
    const attempt = await executeApi(apiCheck({ url: server.url('/loop/a') }), runContext());
    expect(attempt.hasErrors).toBe(true);
    expect(attempt.error).toMatch(/redirect loop/);
    expect(server.received.map((r) => r.url)).toEqual(['/loop/a', '/loop/b']);
  });

  it('returns the 3xx itself when followRedirects is false', async () => {
    const attempt = await executeApi(
      apiCheck({ url: server.url('/found'), followRedirects: false }),
      runContext(),
    );
    expect(attempt).toMatchObject({ hasErrors: false, hasFailures: false });
    expect(apiResult(attempt).response).toMatchObject({ status: 302, headers: { location: '/result' } });
    expect(server.received).toHaveLength(1);
  });

  it('turns a POST into a GET without body on 303 and on 302', async () => {
    for (const path of ['/see-other', '/found']) {
      server.received.length = 0;
      const check = apiCheck({ url: server.url(path), method: 'POST', bodyType: 'JSON', body: '{"a":1}' });
      const attempt = await executeApi(check, runContext());
      expect(apiResult(attempt).response?.body).toBe('final GET');
      const [first, second] = server.received;
      expect(first).toMatchObject({ method: 'POST', body: '{"a":1}' });
      expect(second).toMatchObject({ method: 'GET', url: '/result', body: '' });
      expect(second?.headers['content-type']).toBeUndefined();
    }
  });

  it('keeps method and body on 307', async () => {
    const check = apiCheck({
      url: server.url('/temporary'),
      method: 'PUT',
      bodyType: 'RAW',
      body: 'payload',
    });
    const attempt = await executeApi(check, runContext());
    expect(apiResult(attempt).response?.body).toBe('final PUT');
    expect(server.received[1]).toMatchObject({ method: 'PUT', url: '/result', body: 'payload' });
  });

  it('follows to another origin without the credentials', async () => {
    const check = apiCheck({ url: server.url('/away'), basicAuth: { username: 'u', password: 'p' } });
    const attempt = await executeApi(check, runContext());
    expect(apiResult(attempt).response?.body).toBe('other origin');
    expect(server.received[0]?.headers.authorization).toBeDefined();
    expect(other.received[0]?.headers.authorization).toBeUndefined();
  });

  it('sums the phases of all hops', async () => {
    const attempt = await executeApi(apiCheck({ url: server.url('/away') }), runContext());
    const phases = apiResult(attempt).response?.timingPhases;
    expect(phases).toBeDefined();
    if (!phases) return;
    const sum = phases.wait + phases.dns + phases.tcp + phases.firstByte + phases.download;
    expect(sum).toBeCloseTo(phases.total, 9);
    expect(attempt.responseTime).toBe(phases.total);
  });
});
