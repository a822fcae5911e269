import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../../support/receivers.js';
import {
  createApiCheck,
  createLocation,
  databaseUrlOf,
  STORES,
  startTestServer,
  type TestServer,
  until,
} from '../../support/server.js';
import { apiResult, TestAgent } from '../runs/agent-client.js';

/** Two replicas on one PostgreSQL database, both delivering on their own loops: each notification goes out once. */
describe.runIf(STORES.includes('postgres'))('alert delivery with two replicas', () => {
  let first: TestServer;
  let second: TestServer;
  let receiver: Receiver;
  let agent: TestAgent;

  beforeAll(async () => {
    receiver = await startReceiver();
    const runs = { alertDeliveryPollMs: 20, schedulerTickMs: 60_000 };
    first = await startTestServer('postgres', { runs });
    second = await startTestServer('postgres', { databaseUrl: databaseUrlOf(first), runs });
  });
  afterAll(async () => {
    agent?.close();
    await second?.close();
    await first?.close();
    await receiver?.close();
  });

  it('sends each of forty failures exactly once', async () => {
    const location = await createLocation(first, 'replicas');
    const channel = await first.api('POST', '/v1/alert-channels', {
      type: 'WEBHOOK',
      config: { name: 'replicas', url: receiver.url('/') },
    });
    agent = await TestAgent.connect(second.url, location.key, first.accountId, { agentId: 'replica-agent' });
    const checks: string[] = [];
    for (let i = 0; i < 40; i++) {
      const fields = {
        name: `Replica ${i}`,
        privateLocations: ['replicas'],
        activated: false,
        doubleCheck: false,
        alertChannelSubscriptions: [{ alertChannelId: channel.body.id, activated: true }],
      };
      checks.push(await createApiCheck(first, fields, { autoAssignAlerts: false }));
    }
    await first.api('POST', '/v2/check-sessions/trigger', { target: { checkId: checks } });
    agent.credit(40);
    let done = 0;
    while (done < checks.length) {
      const run = await agent.next('run');
      const posted = await agent.postResult(run as never, apiResult({ failed: 'down' }));
      expect(posted.status).toBe(200);
      done += 1;
    }
    await until(
      async () => receiver.received.length,
      (count) => count >= checks.length,
      20_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const ids = receiver.received.map((r) => r.headers['x-vantage-notification-id']);
    expect(ids.length).toBe(40);
    expect(new Set(ids).size).toBe(40);
    expect(new Set(receiver.received.map((r) => JSON.parse(r.body).CHECK_ID))).toEqual(new Set(checks));
  });
});
