import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../../support/receivers.js';
import {
  createApiCheck,
  createLocation,
  STORES,
  startTestServer,
  type TestServer,
  until,
} from '../../support/server.js';
import { apiResult, TestAgent } from '../runs/agent-client.js';

/**
 * The outbox is polled once a minute here: a notification that arrives sooner was sent because the session that
 * wrote it woke delivery.
 */
describe.each(STORES)('alert delivery woken by the result that alerts (%s)', (store) => {
  let server: TestServer;
  let receiver: Receiver;
  let agent: TestAgent;

  beforeAll(async () => {
    receiver = await startReceiver();
    server = await startTestServer(store, { runs: { alertDeliveryPollMs: 60_000, schedulerTickMs: 60_000 } });
  });
  afterAll(async () => {
    agent?.close();
    await server?.close();
    await receiver?.close();
  });

  it('sends the alert of a failing result at once, not at the next poll', async () => {
    const location = await createLocation(server, 'wake');
    const channel = await server.api('POST', '/v1/alert-channels', {
      type: 'WEBHOOK',
      config: { name: 'wake', url: receiver.url('/') },
    });
    const fields = {
      name: 'Wakes delivery',
      privateLocations: ['wake'],
      activated: false,
      doubleCheck: false,
      alertChannelSubscriptions: [{ alertChannelId: channel.body.id, activated: true }],
    };
    const checkId = await createApiCheck(server, fields, { autoAssignAlerts: false });
    agent = await TestAgent.connect(server.url, location.key, server.accountId, { agentId: 'wake-agent' });
    await server.api('POST', '/v2/check-sessions/trigger', { target: { checkId: [checkId] } });
    agent.credit(1);
    const run = await agent.next('run');
    expect((await agent.postResult(run as never, apiResult({ failed: 'down' }))).status).toBe(200);
    await until(
      async () => receiver.received.length,
      (count) => count >= 1,
      10_000,
    );
    expect(JSON.parse(receiver.received[0]?.body ?? '{}').CHECK_ID).toBe(checkId);
  });
});
