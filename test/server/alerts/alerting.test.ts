import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../../support/receivers.js';
import { STORES, type TestServer } from '../../support/server.js';
import { AlertBench } from './support.js';

const MINUTE = 60_000;

describe.each(STORES)('alerting from finished sessions (%s)', (store) => {
  let server: TestServer;
  let bench: AlertBench;
  let hook: Receiver;
  let n = 0;

  beforeAll(async () => {
    hook = await startReceiver();
    bench = await AlertBench.start(store, 'alerts');
    server = bench.server;
  });
  afterAll(async () => {
    await bench?.close();
    await hook?.close();
  });

  /** A webhook channel to `hook` whose requests carry `tag` in their path, so each test reads its own. */
  const webhook = async (fields: Record<string, unknown> = {}, config: Record<string, unknown> = {}) => {
    n += 1;
    const path = `/hook-${n}`;
    const id = await bench.channel('WEBHOOK', { name: `hook ${n}`, url: hook.url(path), ...config }, fields);
    const seen = () => hook.received.filter((r) => r.url.startsWith(path)).map((r) => JSON.parse(r.body));
    return { id, path, seen, types: () => seen().map((b) => b.ALERT_TYPE) };
  };

  it('sends one ALERT_FAILURE on the first failure, nothing while it keeps failing, and ALERT_RECOVERY', async () => {
    const channel = await webhook();
    const check = await bench.check([channel.id]);
    await bench.session(check, 'PASSED');
    expect(channel.types()).toEqual([]);
    const failed = await bench.session(check, 'FAILED');
    expect(channel.types()).toEqual(['ALERT_FAILURE']);
    const [alert] = channel.seen();
    expect(alert).toMatchObject({
      CHECK_ID: check,
      CHECK_TYPE: 'API',
      CHECK_ERROR_MESSAGE: 'connect ECONNREFUSED',
      RUN_LOCATION: 'alerts',
      RESULT_LINK: `http://127.0.0.1/sessions/${failed}`,
    });
    expect(alert.ALERT_TITLE).toContain('is failing');
    await bench.session(check, 'FAILED');
    expect(channel.types()).toEqual(['ALERT_FAILURE']);
    const failing = await server.api('GET', `/v1/checks/${check}/alert-state`);
    expect(failing.body).toMatchObject({ state: 'FAILING', failedSessions: 2, alerted: true });
    await bench.session(check, 'PASSED');
    expect(channel.types()).toEqual(['ALERT_FAILURE', 'ALERT_RECOVERY']);
    expect((await server.api('GET', `/v1/checks/${check}/alert-state`)).body.state).toBe('PASSING');
    const listed = await bench.notifications(`?checkId=${check}`);
    expect(listed.map((x) => [x.alertType, x.status, x.attempts, x.responseStatus])).toEqual([
      ['ALERT_RECOVERY', 'SENT', 1, 200],
      ['ALERT_FAILURE', 'SENT', 1, 200],
    ]);
  });

  it('counts sessions of one check whose results arrive in one batch in their order, a pass after a failure too', async () => {
    const channel = await webhook();
    const check = await bench.check([channel.id]);
    await bench.session(check, 'PASSED');
    await bench.sessionsTogether(check, ['FAILED', 'PASSED']);
    expect(channel.types()).toEqual(['ALERT_FAILURE', 'ALERT_RECOVERY']);
    expect((await server.api('GET', `/v1/checks/${check}/alert-state`)).body.state).toBe('PASSING');
    await bench.sessionsTogether(check, ['PASSED', 'FAILED']);
    expect(channel.types()).toEqual(['ALERT_FAILURE', 'ALERT_RECOVERY', 'ALERT_FAILURE']);
    expect((await server.api('GET', `/v1/checks/${check}/alert-state`)).body.state).toBe('FAILING');
  });

  it('waits for failedRunThreshold consecutive failed sessions; a pass in between starts the count again', async () => {
    const channel = await webhook();
    const check = await bench.check([channel.id], {
      alertSettings: { escalationType: 'RUN_BASED', runBasedEscalation: { failedRunThreshold: 3 } },
      useGlobalAlertSettings: false,
    });
    await bench.session(check, 'FAILED');
    await bench.session(check, 'FAILED');
    await bench.session(check, 'PASSED');
    await bench.session(check, 'FAILED');
    await bench.session(check, 'FAILED');
    expect(channel.types()).toEqual([]);
    await bench.session(check, 'FAILED');
    expect(channel.types()).toEqual(['ALERT_FAILURE']);
  });

  it('takes the account’s settings when the check uses the global ones', async () => {
    const put = await server.api('PUT', '/v1/accounts/me', {
      alertSettings: { runBasedEscalation: { failedRunThreshold: 2 } },
    });
    expect(put.status).toBe(200);
    expect(put.body.alertSettings).toMatchObject({
      escalationType: 'RUN_BASED',
      runBasedEscalation: { failedRunThreshold: 2 },
      reminders: { amount: 0, interval: 5 },
    });
    const refused = await server.api('PUT', '/v1/accounts/me', {
      alertSettings: { reminders: { amount: 7, interval: 5 } },
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('alertSettings.reminders.amount');
    try {
      const channel = await webhook();
      const check = await bench.check([channel.id]);
      await bench.session(check, 'FAILED');
      expect(channel.types()).toEqual([]);
      await bench.session(check, 'FAILED');
      expect(channel.types()).toEqual(['ALERT_FAILURE']);
    } finally {
      await server.api('PUT', '/v1/accounts/me', { alertSettings: {} });
    }
  });

  it('sends ALERT_DEGRADED only to channels with sendDegraded, and its recovery only to those', async () => {
    const loud = await webhook({ sendDegraded: true });
    const quiet = await webhook();
    const check = await bench.check([loud.id, quiet.id]);
    await bench.session(check, 'DEGRADED');
    await bench.session(check, 'DEGRADED');
    await bench.session(check, 'PASSED');
    expect(loud.types()).toEqual(['ALERT_DEGRADED', 'ALERT_DEGRADED_RECOVERY']);
    expect(quiet.types()).toEqual([]);
  });

  it('counts a runParallel session as failed only when the percentage of its locations failed', async () => {
    const others = ['par-b', 'par-c', 'par-d'];
    for (const slug of others) await bench.addLocation(slug);
    const channel = await webhook();
    const check = await bench.check([channel.id], {
      runParallel: true,
      privateLocations: [bench.location.slugName, ...others],
      useGlobalAlertSettings: false,
      alertSettings: { parallelRunFailureThreshold: { enabled: true, percentage: 50 } },
    });
    const parallel = async (failing: number) => {
      const created = await server.api('POST', '/v2/check-sessions/trigger', {
        target: { checkId: [check] },
      });
      expect(created.status).toBe(201);
      const slugs = [bench.location.slugName, ...others];
      for (const [i, slug] of slugs.entries())
        await bench.finishRuns(i < failing ? 'FAILED' : 'PASSED', undefined, slug);
    };
    await parallel(1);
    expect(channel.types()).toEqual([]);
    await parallel(2);
    expect(channel.types()).toEqual(['ALERT_FAILURE']);
  });

  it('reminds while failing, `amount` times `interval` minutes apart', async () => {
    const channel = await webhook();
    const check = await bench.check([channel.id], {
      useGlobalAlertSettings: false,
      alertSettings: { reminders: { amount: 2, interval: 5 } },
    });
    await bench.session(check, 'FAILED');
    await bench.advance(4 * MINUTE);
    expect(channel.types()).toEqual(['ALERT_FAILURE']);
    await bench.advance(1 * MINUTE);
    expect(channel.types()).toEqual(['ALERT_FAILURE', 'ALERT_FAILURE_REMAIN']);
    await bench.advance(5 * MINUTE);
    await bench.advance(5 * MINUTE);
    await bench.advance(5 * MINUTE);
    expect(channel.types()).toEqual(['ALERT_FAILURE', 'ALERT_FAILURE_REMAIN', 'ALERT_FAILURE_REMAIN']);
    expect(channel.seen()[1].ALERT_TITLE).toContain('still failing');
  });

  it('escalates a TIME_BASED failure once it has lasted minutesFailingThreshold with no pass', async () => {
    const channel = await webhook();
    const check = await bench.check([channel.id], {
      useGlobalAlertSettings: false,
      alertSettings: { escalationType: 'TIME_BASED', timeBasedEscalation: { minutesFailingThreshold: 10 } },
    });
    await bench.session(check, 'FAILED');
    await bench.advance(9 * MINUTE);
    expect(channel.types()).toEqual([]);
    await bench.advance(1 * MINUTE);
    expect(channel.types()).toEqual(['ALERT_FAILURE']);
    expect(channel.seen()[0].CHECK_ERROR_MESSAGE).toBe('connect ECONNREFUSED');
  });

  it('sends nothing for a muted check, and no recovery for a failure it never sent', async () => {
    const channel = await webhook();
    const check = await bench.check([channel.id], { muted: true });
    await bench.session(check, 'FAILED');
    expect(channel.types()).toEqual([]);
    expect((await server.api('PUT', `/v1/checks/${check}`, { muted: false })).status).toBe(200);
    await bench.session(check, 'PASSED');
    await bench.session(check, 'FAILED');
    expect(channel.types()).toEqual(['ALERT_FAILURE']);
  });

  it('sends nothing for a check in a muted group', async () => {
    const channel = await webhook();
    const group = await server.api('POST', '/v1/check-groups?autoAssignAlerts=false', {
      name: 'Muted group',
      muted: true,
      locations: [],
    });
    expect(group.status).toBe(201);
    const check = await bench.check([channel.id], { groupId: group.body.id });
    await bench.session(check, 'FAILED');
    expect(channel.types()).toEqual([]);
  });

  it('silences a check whose tag is in a maintenance window in progress; test sessions never alert', async () => {
    const channel = await webhook();
    const check = await bench.check([channel.id], { tags: ['db-upgrade'] });
    const now = bench.clock.now().getTime();
    const window = await server.api('POST', '/v1/maintenance-windows', {
      name: 'DB upgrade',
      tags: ['db-upgrade'],
      startsAt: new Date(now - MINUTE).toISOString(),
      endsAt: new Date(now + 30 * MINUTE).toISOString(),
    });
    expect(window.status).toBe(201);
    expect(window.body).toMatchObject({ pauseRuns: true, silenceAlerts: true });
    await bench.session(check, 'FAILED');
    expect(channel.types()).toEqual([]);
    await server.api('DELETE', `/v1/maintenance-windows/${window.body.id}`);

    const other = await bench.check([channel.id]);
    const tested = await server.api('POST', '/v1/test-sessions/trigger', {
      name: 'A test run',
      location: bench.location.slugName,
      target: { checkId: [other] },
    });
    expect(tested.status).toBe(201);
    await bench.finishRuns('FAILED');
    expect(channel.types()).toEqual([]);
  });

  it('signs the body with the webhookSecret and names the notification for idempotent receivers', async () => {
    const channel = await webhook({}, { webhookSecret: 'whsec-signing-secret' });
    const check = await bench.check([channel.id]);
    await bench.session(check, 'FAILED');
    const [request] = hook.received.filter((r) => r.url.startsWith(channel.path));
    const expected = createHmac('sha256', 'whsec-signing-secret')
      .update(request?.body ?? '')
      .digest('hex');
    expect(request?.headers['x-vantage-signature']).toBe(`sha256=${expected}`);
    const [listed] = await bench.notifications(`?alertChannelId=${channel.id}`);
    expect(request?.headers['x-vantage-notification-id']).toBe(listed.id);
    const shown = await server.api('GET', `/v1/alert-channels/${channel.id}`);
    expect(shown.body.config.webhookSecret).toBe('*****');
    expect(JSON.stringify(await bench.notifications())).not.toContain('whsec-signing-secret');
  });

  it('retries a receiver that answers 500 with back-off and delivers once; ends on a 400', async () => {
    const flaky = await startReceiver([500, 500, 500, 500, 500]);
    const refusing = await startReceiver([400]);
    try {
      const a = await bench.channel('WEBHOOK', { name: 'flaky', url: flaky.url('/') });
      const b = await bench.channel('WEBHOOK', { name: 'refusing', url: refusing.url('/') });
      const check = await bench.check([a, b]);
      await bench.session(check, 'FAILED');
      for (let i = 0; i < 8; i++) await bench.advance(MINUTE);
      expect(flaky.received.length).toBe(6);
      expect(new Set(flaky.received.map((r) => r.headers['x-vantage-notification-id'])).size).toBe(1);
      expect(refusing.received.length).toBe(1);
      const listed = await bench.notifications(`?checkId=${check}`);
      const byChannel = new Map(listed.map((x) => [x.alertChannelId, x]));
      expect(byChannel.get(a)).toMatchObject({ status: 'SENT', attempts: 6, responseStatus: 200 });
      expect(byChannel.get(a).attemptLog.map((x: any) => x.responseStatus)).toEqual([
        500, 500, 500, 500, 500, 200,
      ]);
      expect(byChannel.get(b)).toMatchObject({ status: 'FAILED', attempts: 1, responseStatus: 400 });
      expect(await bench.notifications(`?checkId=${check}&status=FAILED`)).toHaveLength(1);
    } finally {
      await flaky.close();
      await refusing.close();
    }
  });

  it('alerts on a certificate that expires within the threshold, at most once a day', async () => {
    const channel = await webhook({ sslExpiry: true, sslExpiryThreshold: 14 });
    const check = await bench.check([channel.id]);
    await bench.session(check, 'PASSED', { daysRemaining: 40 });
    await bench.session(check, 'PASSED', { daysRemaining: 20 });
    expect(channel.types()).toEqual([]);
    await bench.session(check, 'PASSED', { daysRemaining: 10 });
    await bench.session(check, 'PASSED', { daysRemaining: 10 });
    expect(channel.types()).toEqual(['ALERT_SSL']);
    expect(channel.seen()[0]).toMatchObject({ SSL_DAYS_REMAINING: 10, SSL_CHECK_DOMAIN: '127.0.0.1' });
    await bench.advance(24 * 60 * MINUTE);
    await bench.session(check, 'PASSED', { daysRemaining: 9 });
    expect(channel.types()).toEqual(['ALERT_SSL', 'ALERT_SSL']);
  });

  it('answers a channel test with what the receiver said', async () => {
    const channel = await webhook();
    const sent = await server.api('POST', `/v1/alert-channels/${channel.id}/test`, {});
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ outcome: 'SENT', responseStatus: 200 });
    expect(channel.seen()[0]).toMatchObject({
      ALERT_TYPE: 'ALERT_FAILURE',
      CHECK_NAME: 'Vantage test alert',
    });
    const closed = await bench.channel('WEBHOOK', { name: 'nobody', url: 'http://127.0.0.1:9/' });
    const failed = await server.api('POST', `/v1/alert-channels/${closed}/test`);
    expect(failed.body).toMatchObject({ outcome: 'FAILED', responseStatus: null });
    expect(failed.body.detail).toContain('ECONNREFUSED');
  });
});
