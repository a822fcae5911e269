/**
 * End to end: a real agent runs checks against local targets for a real control plane, and alerts reach local
 * receivers — a failure within seconds of the session ending, and a certificate that expires in 10 days.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAgent, type TestAgent } from '../support/agent.js';
import { type TestServer as HttpTarget, startHttpsServer } from '../support/http-servers.js';
import { type Receiver, startReceiver } from '../support/receivers.js';
import { apiCheckAt, completed, FAST_RUNS, trigger } from '../support/runs.js';
import {
  createApiCheck,
  createLocation,
  STORES,
  startTestServer,
  type TestServer,
  until,
} from '../support/server.js';
import { selfSignedCertificate } from '../support/tls.js';

describe.each(STORES)('alerts from a real agent (%s)', (store) => {
  let server: TestServer;
  let agent: TestAgent;
  let receiver: Receiver;
  let tlsTarget: HttpTarget;
  let channel: number;

  beforeAll(async () => {
    receiver = await startReceiver();
    tlsTarget = await startHttpsServer((_req, res) => res.end('ok'), selfSignedCertificate({ days: 10 }));
    server = await startTestServer(store, { runs: FAST_RUNS });
    const location = await createLocation(server, 'alerting');
    const created = await server.api('POST', '/v1/alert-channels', {
      type: 'WEBHOOK',
      config: { name: 'receiver', url: receiver.url('/alerts') },
      sslExpiry: true,
      sslExpiryThreshold: 14,
    });
    channel = created.body.id;
    agent = await startTestAgent({ url: server.url, key: location.key });
  });
  afterAll(async () => {
    await agent?.agent.stop();
    await server?.close();
    await receiver?.close();
    await tlsTarget?.close();
  });

  const alertsAbout = (checkId: string) =>
    receiver.received.map((r) => JSON.parse(r.body)).filter((b) => b.CHECK_ID === checkId);

  it('delivers ALERT_FAILURE within 5 s of the failed session ending, then ALERT_RECOVERY', async () => {
    const checkId = await createApiCheck(
      server,
      apiCheckAt('http://127.0.0.1:9/down', { privateLocations: ['alerting'] }),
    );
    const created = await server.api('GET', `/v1/checks/${checkId}`);
    expect(created.body.alertChannelSubscriptions).toEqual([{ alertChannelId: channel, activated: true }]);
    const [sessionId] = await trigger(server, [checkId]);
    const session = await completed(server, sessionId as string);
    expect(session.status).toBe('FAILED');
    const ended = Date.now();
    const alerts = await until(
      async () => alertsAbout(checkId),
      (list) => list.length > 0,
      5000,
    );
    expect(Date.now() - ended).toBeLessThan(5000);
    expect(alerts.map((a) => a.ALERT_TYPE)).toEqual(['ALERT_FAILURE']);
    expect(alerts[0].CHECK_ERROR_MESSAGE).toContain('ECONNREFUSED');

    await server.api('PUT', `/v1/checks/${checkId}`, { request: { url: tlsTarget.url('/'), skipSSL: true } });
    await completed(server, (await trigger(server, [checkId]))[0] as string);
    const after = await until(
      async () => alertsAbout(checkId),
      (list) => list.some((a) => a.ALERT_TYPE === 'ALERT_RECOVERY'),
      5000,
    );
    expect(after.map((a) => a.ALERT_TYPE)).toEqual(
      expect.arrayContaining(['ALERT_FAILURE', 'ALERT_RECOVERY']),
    );
  });

  it('alerts once on a certificate that ends in 10 days', async () => {
    const checkId = await createApiCheck(
      server,
      apiCheckAt(tlsTarget.url('/cert'), {
        privateLocations: ['alerting'],
        request: { url: tlsTarget.url('/cert'), method: 'GET', skipSSL: true, assertions: [] },
      }),
    );
    for (let i = 0; i < 2; i++) {
      const session = await completed(server, (await trigger(server, [checkId]))[0] as string);
      expect(session.status).toBe('PASSED');
    }
    const alerts = await until(
      async () => alertsAbout(checkId),
      (list) => list.length > 0,
      5000,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(alertsAbout(checkId).map((a) => a.ALERT_TYPE)).toEqual(['ALERT_SSL']);
    expect(alerts[0]).toMatchObject({ SSL_CHECK_DOMAIN: '127.0.0.1' });
    expect([9, 10]).toContain(alerts[0].SSL_DAYS_REMAINING);
  });
});
