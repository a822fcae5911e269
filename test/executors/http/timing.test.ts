import { lookup } from 'node:dns/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeApi, executeUrl } from '../../../src/executors/http/index.js';
import { startHttpServer, type TestServer } from '../../support/http-servers.js';
import { apiCheck, apiResult, runContext, urlCheck } from './fixtures.js';

let server: TestServer;
let serverV6: TestServer;

/** Answers `/delay/<ms>` after that many milliseconds, anything else at once. */
const delayed: Parameters<typeof startHttpServer>[0] = (req, res) => {
  const ms = Number(/^\/delay\/(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
  const timer = setTimeout(() => res.end('late'), ms);
  res.on('close', () => clearTimeout(timer));
};

beforeAll(async () => {
  server = await startHttpServer(delayed);
  serverV6 = await startHttpServer((_req, res) => res.end('over IPv6'), { host: '::1' });
});
afterAll(async () => {
  await server.close();
  await serverV6.close();
});

describe('timings', () => {
  it('has phases that add up to the total, which is the response time', async () => {
    const attempt = await executeApi(apiCheck({ url: server.url('/delay/20') }), runContext());
    const { timings, timingPhases: p } = apiResult(attempt).response ?? {};
    if (!timings || !p) throw new Error('no response');
    expect(p.wait + p.dns + p.tcp + p.firstByte + p.download).toBeCloseTo(p.total, 9);
    // whole microseconds: the sum is exact at that precision
    const micros = (ms: number) => Math.round(ms * 1000);
    expect(micros(p.wait) + micros(p.dns) + micros(p.tcp) + micros(p.firstByte) + micros(p.download)).toBe(
      micros(p.total),
    );
    expect(attempt.responseTime).toBe(p.total);
    expect(p.total).toBeGreaterThanOrEqual(20);
    expect(p.firstByte).toBeGreaterThanOrEqual(19);
    expect(p.dns).toBe(0); // an IP literal is not looked up
    expect(timings).toEqual({
      socket: p.wait,
      lookup: expect.closeTo(p.wait + p.dns, 9),
      connect: expect.closeTo(p.wait + p.dns + p.tcp, 9),
      response: expect.closeTo(p.total - p.download, 9),
      end: p.total,
    });
  });

  it('marks a slow response degraded', async () => {
    const check = apiCheck(
      { url: server.url('/delay/150') },
      { degradedResponseTime: 50, maxResponseTime: 10_000 },
    );
    const attempt = await executeApi(check, runContext());
    expect(attempt).toMatchObject({
      isDegraded: true,
      hasErrors: false,
      hasFailures: false,
      overMaxResponseTime: false,
    });
  });

  it('aborts at maxResponseTime, long before the server would answer', async () => {
    const check = urlCheck(
      { url: server.url('/delay/10000') },
      { degradedResponseTime: 100, maxResponseTime: 300 },
    );
    const started = Date.now();
    const attempt = await executeUrl(check, runContext());
    expect(Date.now() - started).toBeLessThan(5000);
    expect(attempt).toMatchObject({ overMaxResponseTime: true, hasErrors: true, networkError: true });
    expect(attempt.error).toMatch(/^response time [\d.]+ ms exceeded maxResponseTime of 300 ms$/);
    expect(apiResult(attempt).requestError).toBe(attempt.error);
    expect(attempt.responseTime).toBeGreaterThanOrEqual(290);
  });

  it('stops when the run signal aborts (cancel or deadline)', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('cancelled by the user')), 100);
    const started = Date.now();
    const check = apiCheck(
      { url: server.url('/delay/10000') },
      { maxResponseTime: null, degradedResponseTime: null },
    );
    const attempt = await executeApi(check, runContext({ signal: controller.signal }));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(attempt).toMatchObject({ hasErrors: true, overMaxResponseTime: false });
    expect(attempt.error).toMatch(/cancelled by the user/);
  });

  it('returns at once for a signal aborted before the run', async () => {
    const attempt = await executeApi(
      apiCheck({ url: server.url('/') }),
      runContext({ signal: AbortSignal.abort() }),
    );
    expect(attempt.hasErrors).toBe(true);
  });
});

describe('connections', () => {
  it('opens a fresh connection for every run and closes it after', async () => {
    const sockets: import('node:net').Socket[] = [];
    const onConnection = (socket: import('node:net').Socket) => sockets.push(socket);
    server.server.on('connection', onConnection);
    try {
      for (let run = 0; run < 2; run++) {
        const attempt = await executeApi(apiCheck({ url: server.url('/') }), runContext());
        expect(attempt.error).toBeNull();
      }
      expect(sockets).toHaveLength(2);
      await expect.poll(() => sockets.every((s) => s.closed)).toBe(true);
    } finally {
      server.server.off('connection', onConnection);
    }
  });

  it('reports a refused connection as a network error', async () => {
    const closed = await startHttpServer(() => {});
    const url = closed.url('/');
    await closed.close();
    const attempt = await executeApi(apiCheck({ url }), runContext());
    expect(attempt).toMatchObject({ hasErrors: true, networkError: true, hasFailures: false });
    expect(attempt.error).toMatch(/ECONNREFUSED/);
    expect(apiResult(attempt)).toMatchObject({ response: null, requestError: attempt.error });
  });

  it('reaches an IPv6 literal with ipFamily IPv6', async () => {
    const attempt = await executeApi(apiCheck({ url: serverV6.url('/'), ipFamily: 'IPv6' }), runContext());
    expect(attempt.error).toBeNull();
    expect(apiResult(attempt).response?.body).toBe('over IPv6');
    expect(apiResult(attempt).response?.timingPhases.dns).toBe(0);
  });

  it('resolves localhost to 127.0.0.1 with ipFamily IPv4', async () => {
    const attempt = await executeApi(
      apiCheck({ url: `http://localhost:${server.port}/`, ipFamily: 'IPv4' }),
      runContext(),
    );
    expect(attempt.error).toBeNull();
    expect(apiResult(attempt).jobLog.map((l) => l.msg)).toContain('resolved localhost to 127.0.0.1');
  });

  it('resolves localhost in the IPv6 family with ipFamily IPv6, or fails when it has no IPv6 address', async () => {
    const hasV6 = await lookup('localhost', { family: 6 }).then(
      () => true,
      () => false,
    );
    const attempt = await executeApi(
      apiCheck({ url: `http://localhost:${serverV6.port}/`, ipFamily: 'IPv6' }),
      runContext(),
    );
    if (hasV6) {
      expect(attempt.error).toBeNull();
      expect(apiResult(attempt).response?.body).toBe('over IPv6');
    } else {
      expect(attempt).toMatchObject({ hasErrors: true, networkError: true });
      expect(attempt.error).toMatch(/ENOTFOUND|EAI_/);
    }
  });
});
