import { afterEach, describe, expect, it } from 'vitest';
import { executeTcp } from '../../../src/executors/tcp/index.js';
import { closedPort, resetServer, type TcpTestServer } from '../../support/tcp-servers.js';
import { assertion, runContext, tcpCheck } from './fixtures.js';

const servers: TcpTestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('executeTcp errors', () => {
  it('reports a refused connection as a network error with its code and address', async () => {
    const port = await closedPort();
    const check = tcpCheck({
      hostname: '127.0.0.1',
      port,
      data: 'PING',
      assertions: [assertion('RESPONSE_DATA', 'CONTAINS', 'PONG')],
    });
    const attempt = await executeTcp(check, runContext());

    expect(attempt).toMatchObject({ hasErrors: true, networkError: true, overMaxResponseTime: false });
    expect(attempt.error).toContain('ECONNREFUSED');
    expect(attempt.error).toContain(`127.0.0.1:${port}`);
    expect(attempt.detail).toMatchObject({
      tcpCheckResult: { response: null, requestError: attempt.error },
    });
  });

  it('reports a reset after connecting as an error that is not a network error', async () => {
    const server = await resetServer();
    servers.push(server);
    const check = tcpCheck({ hostname: '127.0.0.1', port: server.port, data: 'PING\\r\\n' });
    const attempt = await executeTcp(check, runContext());

    expect(attempt).toMatchObject({ hasErrors: true, networkError: false });
    expect(attempt.error).toContain('ECONNRESET');
    expect(attempt.detail).toMatchObject({ tcpCheckResult: { response: { data: '' } } });
  });
});
