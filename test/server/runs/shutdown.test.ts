import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trigger } from '../../support/runs.js';
import {
  createApiCheck,
  createLocation,
  STORES,
  startTestServer,
  type TestServer,
} from '../../support/server.js';
import { TestAgent } from './agent-client.js';

describe.each(STORES)('stopping the control plane (%s)', (store) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(store, { runs: { completionPollMs: 100 } });
  });
  afterAll(async () => server?.close());

  it('answers the requests under way, then closes their connections instead of waiting for the clients', async () => {
    await createLocation(server, 'closing');
    const checkId = await createApiCheck(server, { activated: false, privateLocations: ['closing'] });
    const [sessionId] = await trigger(server, [checkId]);
    // A client that keeps idle connections for a minute, as agents and API clients do.
    const client = new Agent({ keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000 });
    try {
      const waiting = request(`${server.url}/v2/check-sessions/${sessionId}/completion?maxWaitSeconds=1`, {
        headers: server.headers,
        dispatcher: client,
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const started = Date.now();
      const stopped = server.stop();
      const answer = await waiting;
      await answer.body.text();
      expect(answer.statusCode).toBe(408);
      await stopped;
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      await client.close();
    }
  });

  it('turns agents away while it stops, so that none is welcomed by a server on its way out', async () => {
    await server.start();
    const location = await createLocation(server, 'leaving');
    const connected = await TestAgent.connect(server.url, location.key, server.accountId);
    // An agent slow to answer the close keeps the stop waiting (up to a second) with the port still open.
    (connected.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const stopped = server.stop();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await expect(TestAgent.open(server.url, location.key, server.accountId, 'agent-2')).rejects.toThrow(
      'HTTP 503',
    );
    await stopped;
  });
});
