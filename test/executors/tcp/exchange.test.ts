import { afterEach, describe, expect, it } from 'vitest';
import { executeTcp, READ_IDLE_TIMEOUT_MS } from '../../../src/executors/tcp/index.js';
import { bannerServer, echoServer, type TcpTestServer } from '../../support/tcp-servers.js';
import { assertion, runContext, tcpCheck } from './fixtures.js';

const servers: TcpTestServer[] = [];
const started = async (server: Promise<TcpTestServer>) => {
  servers.push(await server);
  return servers[servers.length - 1] as TcpTestServer;
};
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const detailOf = (attempt: Awaited<ReturnType<typeof executeTcp>>) => {
  if (!('tcpCheckResult' in attempt.detail)) throw new Error('no tcpCheckResult');
  return attempt.detail.tcpCheckResult;
};

describe('executeTcp against an echo server', () => {
  it('sends data with variables and escapes, and checks the reply with EQUALS, CONTAINS and a capture group', async () => {
    const server = await started(echoServer());
    const check = tcpCheck({
      hostname: '127.0.0.1',
      port: server.port,
      data: 'PING {{NAME}}\\r\\n',
      assertions: [
        assertion('RESPONSE_DATA', 'EQUALS', 'PING vantage\r\n'),
        assertion('RESPONSE_DATA', 'CONTAINS', 'vantage'),
        assertion('RESPONSE_DATA', 'EQUALS', 'vantage', '^PING (\\w+)'),
      ],
    });
    const begun = performance.now();
    const attempt = await executeTcp(check, runContext({ variables: [{ key: 'NAME', value: 'vantage' }] }));
    const detail = detailOf(attempt);

    expect(detail.requestError).toBeNull();
    expect(detail.response?.data).toBe('PING vantage\r\n');
    expect(detail.assertions.map((a) => a.error)).toEqual([null, null, null]);
    expect(detail.assertions[2]?.actual).toBe('vantage');
    expect(attempt).toMatchObject({ hasErrors: false, hasFailures: false, networkError: false, error: null });
    // The server keeps the connection open: the satisfied assertions end the read, not the idle timeout.
    expect(performance.now() - begun).toBeLessThan(READ_IDLE_TIMEOUT_MS);
  });

  it('fails with the reply as actual when an assertion does not hold', async () => {
    const server = await started(echoServer());
    const check = tcpCheck({
      hostname: '127.0.0.1',
      port: server.port,
      data: 'HELLO',
      assertions: [assertion('RESPONSE_DATA', 'CONTAINS', 'PONG')],
    });
    const attempt = await executeTcp(check, runContext());
    const [result] = detailOf(attempt).assertions;

    expect(attempt.hasFailures).toBe(true);
    expect(attempt.hasErrors).toBe(false);
    expect(result?.actual).toBe('HELLO');
    expect(result?.error).toBeTruthy();
    expect(attempt.error).toBe(result?.error);
  });

  it('reports timing phases that add up to the total, which is the response time', async () => {
    const server = await started(echoServer());
    const check = tcpCheck({
      hostname: 'localhost',
      port: server.port,
      data: 'x',
      assertions: [assertion('RESPONSE_DATA', 'EQUALS', 'x')],
    });
    const attempt = await executeTcp(check, runContext());
    const phases = detailOf(attempt).response?.timingPhases;

    expect(phases).toBeDefined();
    if (!phases) return;
    for (const phase of [phases.dns, phases.connect, phases.data]) expect(phase).toBeGreaterThanOrEqual(0);
    expect(phases.dns + phases.connect + phases.data).toBeCloseTo(phases.total, 2);
    expect(attempt.responseTime).toBe(phases.total);
  });

  it('connects over IPv6 to ::1', async () => {
    const server = await started(echoServer('::1'));
    const check = tcpCheck({
      hostname: '[::1]',
      port: server.port,
      ipFamily: 'IPv6',
      data: 'six',
      assertions: [assertion('RESPONSE_DATA', 'EQUALS', 'six')],
    });
    const attempt = await executeTcp(check, runContext());

    expect(attempt.error).toBeNull();
    expect(detailOf(attempt).response?.data).toBe('six');
    expect(detailOf(attempt).response?.timingPhases.dns).toBe(0);
  });
});

describe('executeTcp without data', () => {
  it('passes on the connect alone, reading nothing', async () => {
    const server = await started(bannerServer('220 ready\r\n'));
    const attempt = await executeTcp(tcpCheck({ hostname: '127.0.0.1', port: server.port }), runContext());

    expect(attempt.error).toBeNull();
    expect(server.connections()).toBe(1);
    expect(detailOf(attempt).response).toMatchObject({ data: '', timingPhases: { data: 0 } });
  });

  it('reads the banner when assertions ask about it', async () => {
    const server = await started(bannerServer('220 smtp.local ESMTP\r\n'));
    const check = tcpCheck({
      hostname: '127.0.0.1',
      port: server.port,
      assertions: [assertion('RESPONSE_DATA', 'CONTAINS', '220 ')],
    });
    const begun = performance.now();
    const attempt = await executeTcp(check, runContext());

    expect(attempt.error).toBeNull();
    expect(detailOf(attempt).response?.data).toBe('220 smtp.local ESMTP\r\n');
    expect(performance.now() - begun).toBeLessThan(READ_IDLE_TIMEOUT_MS);
  });

  it('reads until the peer closes when the assertions cannot tell that the reply is complete', async () => {
    const server = await started(bannerServer('+OK bye\r\n', { close: true }));
    const check = tcpCheck({
      hostname: '127.0.0.1',
      port: server.port,
      assertions: [assertion('RESPONSE_DATA', 'NOT_CONTAINS', 'ERR')],
    });
    const begun = performance.now();
    const attempt = await executeTcp(check, runContext());

    expect(attempt.error).toBeNull();
    expect(detailOf(attempt).response?.data).toBe('+OK bye\r\n');
    expect(performance.now() - begun).toBeLessThan(READ_IDLE_TIMEOUT_MS);
  });

  it('evaluates RESPONSE_TIME assertions against the total', async () => {
    const server = await started(bannerServer('hi'));
    const check = tcpCheck({
      hostname: '127.0.0.1',
      port: server.port,
      assertions: [
        assertion('RESPONSE_TIME', 'LESS_THAN', '5000'),
        assertion('RESPONSE_TIME', 'GREATER_THAN', '100000'),
      ],
    });
    const attempt = await executeTcp(check, runContext());
    const [fast, slow] = detailOf(attempt).assertions;

    expect(fast?.error).toBeNull();
    expect(slow?.error).toBeTruthy();
    expect(fast?.actual).toBe(attempt.responseTime);
    expect(attempt.hasFailures).toBe(true);
  });
});
