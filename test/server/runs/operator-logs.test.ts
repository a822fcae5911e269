import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturingLogger, waitFor } from '../../support/agent.js';
import { createApiCheck, createLocation, startTestServer, type TestServer } from '../../support/server.js';
import { apiResult, TestAgent } from './agent-client.js';

/** What an operator reads in the control plane's log at the default level: agents coming and going, runs ending. */
describe('the control plane’s log at INFO', () => {
  let server: TestServer;
  const { logger, logs } = capturingLogger('INFO');

  beforeAll(async () => {
    server = await startTestServer('pglite', { logger: logger as never });
  });
  afterAll(async () => {
    await server?.close();
  });

  const messages = () => logs.entries().map((e) => e.msg);

  it('says when an agent connects and leaves, and when each session finishes', async () => {
    const location = await createLocation(server, 'logged');
    const agent = await TestAgent.connect(server.url, location.key, server.accountId, {
      agentId: 'logged-agent',
    });
    await waitFor('the connect line', () => messages().includes('agent connected'));
    expect(logs.entries().find((e) => e.msg === 'agent connected')).toMatchObject({
      agentId: 'logged-agent',
      location: 'logged',
      hostname: 'test-host',
    });
    const checkId = await createApiCheck(server, {
      privateLocations: ['logged'],
      activated: false,
      doubleCheck: false,
    });
    agent.credit(1);
    const triggered = await server.api('POST', '/v2/check-sessions/trigger', {
      target: { checkId: [checkId] },
    });
    const run = await agent.next('run');
    expect((await agent.postResult(run as never, apiResult({ failed: 'down' }))).status).toBe(200);
    await waitFor('the session line', () => messages().includes('check session finished'));
    expect(logs.entries().find((e) => e.msg === 'check session finished')).toMatchObject({
      sessionId: triggered.body.checkSessions[0].checkSessionId,
      checkId,
      status: 'FAILED',
      runSource: 'TRIGGER_API',
    });
    agent.close();
    await waitFor('the leave line', () => messages().includes('agent left'));
    expect(logs.text).not.toContain(location.key);
  });
});
