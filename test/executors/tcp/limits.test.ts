import { afterEach, describe, expect, it } from 'vitest';
import { executeTcp, MAX_REPLY_BYTES, READ_IDLE_TIMEOUT_MS } from '../../../src/executors/tcp/index.js';
import {
  delayedReplyServer,
  floodServer,
  silentServer,
  type TcpTestServer,
} from '../../support/tcp-servers.js';
import { assertion, runContext, tcpCheck } from './fixtures.js';

const servers: TcpTestServer[] = [];
const started = async (server: Promise<TcpTestServer>) => {
  servers.push(await server);
  return servers[servers.length - 1] as TcpTestServer;
};
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const timed = async <T>(run: () => Promise<T>) => {
  const begun = performance.now();
  const value = await run();
  return { value, ms: performance.now() - begun };
};

describe('executeTcp limits', () => {
  it('ends the read of a peer that never answers at the idle timeout', async () => {
    const server = await started(silentServer());
    const check = tcpCheck({
      hostname: '127.0.0.1',
      port: server.port,
      data: 'PING\\r\\n',
      assertions: [assertion('RESPONSE_DATA', 'CONTAINS', 'PONG')],
    });
    const { value: attempt, ms } = await timed(() => executeTcp(check, runContext()));

    expect(ms).toBeGreaterThanOrEqual(READ_IDLE_TIMEOUT_MS - 50);
    expect(ms).toBeLessThan(READ_IDLE_TIMEOUT_MS + 2000);
    expect(attempt).toMatchObject({ hasErrors: false, hasFailures: true, networkError: false });
    expect(attempt.detail).toMatchObject({ tcpCheckResult: { response: { data: '' } } });
  });

  it('with nothing to send, times a missing banner as the connect alone', async () => {
    const server = await started(silentServer());
    const check = tcpCheck({
      hostname: '127.0.0.1',
      port: server.port,
      assertions: [assertion('RESPONSE_DATA', 'NOT_CONTAINS', 'ERR')],
    });
    const { value: attempt, ms } = await timed(() => executeTcp(check, runContext()));

    expect(ms).toBeGreaterThanOrEqual(READ_IDLE_TIMEOUT_MS - 50);
    expect(attempt).toMatchObject({ hasErrors: false, hasFailures: false, error: null });
    expect(attempt.responseTime).toBeLessThan(READ_IDLE_TIMEOUT_MS / 2);
  });

  it('fails a peer that never answers within a maxResponseTime shorter than the idle timeout', async () => {
    const server = await started(silentServer());
    const check = tcpCheck(
      { hostname: '127.0.0.1', port: server.port, data: 'PING' },
      { maxResponseTime: 300 },
    );
    const { value: attempt, ms } = await timed(() => executeTcp(check, runContext()));

    expect(ms).toBeLessThan(READ_IDLE_TIMEOUT_MS);
    expect(attempt).toMatchObject({ hasErrors: true, overMaxResponseTime: true, networkError: false });
    expect(attempt.error).toContain('ETIMEDOUT');
    expect(attempt.responseTime).toBeGreaterThanOrEqual(290);
  });

  it('cuts a peer that sends without end at the size bound', async () => {
    const server = await started(floodServer());
    const check = tcpCheck({ hostname: '127.0.0.1', port: server.port, data: 'GO' });
    const { value: attempt, ms } = await timed(() => executeTcp(check, runContext()));

    expect(attempt.error).toBeNull();
    expect(attempt.detail).toMatchObject({
      tcpCheckResult: { response: { data: 'x'.repeat(MAX_REPLY_BYTES) } },
    });
    expect(ms).toBeLessThan(5000);
  });

  it('marks a reply slower than degradedResponseTime as degraded', async () => {
    const server = await started(delayedReplyServer('PONG', 300));
    const check = tcpCheck(
      {
        hostname: '127.0.0.1',
        port: server.port,
        data: 'PING',
        assertions: [assertion('RESPONSE_DATA', 'EQUALS', 'PONG')],
      },
      { degradedResponseTime: 100, maxResponseTime: 5000 },
    );
    const attempt = await executeTcp(check, runContext());

    expect(attempt).toMatchObject({ isDegraded: true, hasErrors: false, hasFailures: false, error: null });
    expect(attempt.responseTime).toBeGreaterThanOrEqual(290);
  });

  it('aborts a reply slower than maxResponseTime', async () => {
    const server = await started(delayedReplyServer('PONG', 1500));
    const check = tcpCheck(
      { hostname: '127.0.0.1', port: server.port, data: 'PING' },
      { degradedResponseTime: 100, maxResponseTime: 300 },
    );
    const { value: attempt, ms } = await timed(() => executeTcp(check, runContext()));

    expect(ms).toBeLessThan(1400);
    expect(attempt).toMatchObject({ hasErrors: true, overMaxResponseTime: true });
    expect(attempt.error).toMatch(/ETIMEDOUT.*maxResponseTime of 300 ms/);
  });

  it('stops promptly when the run is cancelled', async () => {
    const server = await started(silentServer());
    const check = tcpCheck({ hostname: '127.0.0.1', port: server.port, data: 'PING' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('the run was cancelled')), 100);
    const { value: attempt, ms } = await timed(() =>
      executeTcp(check, runContext({ signal: controller.signal })),
    );

    expect(ms).toBeLessThan(READ_IDLE_TIMEOUT_MS);
    expect(attempt).toMatchObject({ hasErrors: true, networkError: false });
    expect(attempt.error).toContain('cancelled');
  });

  it('does not connect at all when the run is already cancelled', async () => {
    const server = await started(silentServer());
    const controller = new AbortController();
    controller.abort();
    const check = tcpCheck({ hostname: '127.0.0.1', port: server.port });
    const attempt = await executeTcp(check, runContext({ signal: controller.signal }));

    expect(attempt.hasErrors).toBe(true);
    expect(server.connections()).toBe(0);
  });

  it('leaves no socket behind', async () => {
    const tcpSockets = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;
    const before = tcpSockets();
    const server = await started(silentServer());
    const check = tcpCheck({ hostname: '127.0.0.1', port: server.port, data: 'x' }, { maxResponseTime: 100 });
    await executeTcp(check, runContext());
    await server.close();
    servers.length = 0;
    await new Promise((resolve) => setImmediate(resolve));

    expect(tcpSockets()).toBeLessThanOrEqual(before);
  });
});
