import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../../support/receivers.js';
import { databaseUrlOf, STORES, startTestServer, type TestServer } from '../../support/server.js';
import { AlertBench } from '../alerts/support.js';

const SECOND = 1000;

describe.each(STORES)('heartbeat monitors (%s)', (store) => {
  let bench: AlertBench;
  let server: TestServer;
  let hook: Receiver;
  let n = 0;

  beforeAll(async () => {
    hook = await startReceiver();
    bench = await AlertBench.start(store, 'beats');
    server = bench.server;
  });
  afterAll(async () => {
    await bench?.close();
    await hook?.close();
  });

  /** A heartbeat (30 s period, 10 s grace unless told) whose alerts go to a webhook of its own. */
  const heartbeat = async (fields: Record<string, unknown> = {}) => {
    n += 1;
    const path = `/beat-${n}`;
    const channel = await bench.channel('WEBHOOK', { name: `beat ${n}`, url: hook.url(path) });
    const created = await server.api('POST', '/v1/checks/heartbeat?autoAssignAlerts=false', {
      name: `Nightly job ${n}`,
      heartbeat: { period: 30, periodUnit: 'seconds', grace: 10, graceUnit: 'seconds' },
      alertChannelSubscriptions: [{ alertChannelId: channel, activated: true }],
      ...fields,
    });
    expect(created.status).toBe(201);
    const id: string = created.body.id;
    const token: string = created.body.heartbeat.pingToken;
    const alerts = () =>
      hook.received.filter((r) => r.url.startsWith(path)).map((r) => JSON.parse(r.body).ALERT_TYPE);
    const events = async () => (await server.api('GET', `/v1/checks/heartbeats/${id}/events`)).body.reverse();
    const ping = async (suffix = '', init: { method?: string; body?: string; type?: string } = {}) => {
      const answer = await fetch(`${server.url}/heartbeats/${token}${suffix}`, {
        method: init.method ?? 'GET',
        headers: { 'user-agent': 'backup.sh', ...(init.type ? { 'content-type': init.type } : {}) },
        ...(init.body !== undefined ? { body: init.body } : {}),
      });
      expect(answer.status).toBe(200);
      await bench.deliver();
    };
    return { id, token, alerts, events, ping };
  };

  /** Moves the clock, lets the overdue loop look, and sends what it wrote. */
  const pass = async (ms: number) => {
    bench.clock.advance(ms);
    await server.server.runs.overdueHeartbeatTick();
    await bench.deliver();
  };

  const sessionsOf = async (checkId: string) =>
    (
      await server.server.runs.db.query<{ status: string; run_source: string }>(
        'SELECT status, run_source FROM check_sessions WHERE check_id = $1 ORDER BY started_at',
        [checkId],
      )
    ).map((s) => `${s.run_source} ${s.status}`);

  it('fails a heartbeat whose ping is overdue, once, alerts, and recovers on the next ping', async () => {
    const beat = await heartbeat();
    await pass(39 * SECOND); // within period + grace of its creation
    expect(await beat.events()).toEqual([]);
    await pass(1 * SECOND);
    const [missed] = await beat.events();
    expect(missed).toMatchObject({ state: 'FAILING', timing: null, userAgent: '' });
    expect(missed.source).toMatch(/^OVERDUE/);
    expect(beat.alerts()).toEqual(['ALERT_FAILURE']);
    expect(await sessionsOf(beat.id)).toEqual(['SCHEDULER FAILED']);
    const failed = await server.api('GET', `/v1/check-sessions/${missed.checkSessionId}`);
    expect(failed.body.results[0].heartbeatCheckResult.requestError).toMatch(
      /no ping within 30 s \+ 10 s grace of the start of monitoring/,
    );
    // Looking again before another period passed records nothing more.
    await pass(10 * SECOND);
    expect(await beat.events()).toHaveLength(1);

    await beat.ping();
    expect((await beat.events()).map((e: { state: string }) => e.state)).toEqual(['FAILING', 'PASSING']);
    expect(beat.alerts()).toEqual(['ALERT_FAILURE', 'ALERT_RECOVERY']);
    expect(await sessionsOf(beat.id)).toEqual(['SCHEDULER FAILED', 'TRIGGER_API PASSED']);
    expect((await server.api('GET', `/v1/checks/${beat.id}/alert-state`)).body.state).toBe('PASSING');
  });

  it('counts every period a silent job misses as a failed run, and alerts on the first only', async () => {
    const beat = await heartbeat();
    await beat.ping();
    await pass(40 * SECOND);
    await pass(30 * SECOND);
    await pass(30 * SECOND);
    const states = (await beat.events()).map((e: { state: string }) => e.state);
    expect(states).toEqual(['PASSING', 'FAILING', 'FAILING', 'FAILING']);
    expect((await beat.events())[2].checkSessionId).not.toBeNull();
    expect(beat.alerts()).toEqual(['ALERT_FAILURE']);
    const state = (await server.api('GET', `/v1/checks/${beat.id}/alert-state`)).body;
    expect(state).toMatchObject({ state: 'FAILING', failedSessions: 3 });
  });

  it('fails at once on a /fail ping, and times pings against the period: early, on time, late', async () => {
    const beat = await heartbeat();
    await beat.ping(); // the first: on time
    await pass(5 * SECOND);
    await beat.ping(); // 25 s before it was due, more than the grace: early
    await pass(25 * SECOND);
    await beat.ping(); // 5 s before: on time
    await pass(35 * SECOND);
    await beat.ping(); // 5 s after the period, within the grace: late, still passing
    expect(beat.alerts()).toEqual([]);
    await beat.ping('/fail', { method: 'POST', body: 'pg_dump: connection refused', type: 'text/plain' });
    expect(beat.alerts()).toEqual(['ALERT_FAILURE']);
    const events = await beat.events();
    expect(events.map((e: { state: string; timing: string }) => `${e.state} ${e.timing}`)).toEqual([
      'PASSING ON_TIME',
      'PASSING EARLY',
      'PASSING ON_TIME',
      'PASSING LATE',
      'FAILING EARLY',
    ]);
    expect(events[4]).toMatchObject({
      source: 'HTTP POST from 127.0.0.1',
      userAgent: 'backup.sh',
      body: 'pg_dump: connection refused',
      bodyTruncated: false,
    });
    const failed = await server.api('GET', `/v1/check-sessions/${events[4].checkSessionId}`);
    expect(failed.body).toMatchObject({ status: 'FAILED', checkType: 'HEARTBEAT' });
    expect(failed.body.results[0].heartbeatCheckResult.requestError).toBe(
      'the job reported a failure (a ping to the /fail URL)',
    );
  });

  it('keeps a ping body of any type up to 10,000 characters, and says when it cut one', async () => {
    const beat = await heartbeat();
    await beat.ping('', { method: 'POST', body: '{"rows": 12}', type: 'application/json' });
    await beat.ping('', { method: 'POST', body: 'x'.repeat(10_001), type: 'text/plain' });
    await beat.ping('', { method: 'POST', body: '', type: 'application/json' });
    const [json, long, empty] = await beat.events();
    expect(json).toMatchObject({ body: '{"rows": 12}', bodyTruncated: false });
    expect(long.body).toHaveLength(10_000);
    expect(long.bodyTruncated).toBe(true);
    expect(empty).toMatchObject({ body: null, bodyTruncated: false });
  });

  it('does not fail a deactivated heartbeat; its pings are kept without sessions; activated, it waits a whole window', async () => {
    const beat = await heartbeat({ activated: false });
    await pass(60 * SECOND);
    await beat.ping();
    const [event] = await beat.events();
    expect(event).toMatchObject({ state: 'PASSING', checkSessionId: null });
    expect(await sessionsOf(beat.id)).toEqual([]);
    expect((await server.api('PUT', `/v1/checks/${beat.id}`, { activated: true })).status).toBe(200);
    await pass(39 * SECOND);
    expect(await beat.events()).toHaveLength(1);
    await pass(1 * SECOND);
    expect((await beat.events()).map((e: { state: string }) => e.state)).toEqual(['PASSING', 'FAILING']);
  });

  it('gives a changed period a whole new window, and keeps the wait across a restart', async () => {
    const beat = await heartbeat();
    await pass(30 * SECOND);
    const put = await server.api('PUT', `/v1/checks/${beat.id}`, {
      heartbeat: { period: 1, periodUnit: 'minutes', grace: 0, graceUnit: 'seconds' },
    });
    expect(put.status).toBe(200);
    await server.restart();
    await pass(59 * SECOND);
    expect(await beat.events()).toEqual([]);
    await pass(1 * SECOND);
    const [missed] = await beat.events();
    expect(missed.state).toBe('FAILING');
    expect(beat.alerts()).toEqual(['ALERT_FAILURE']);
  });
});

describe.runIf(STORES.includes('postgres'))('heartbeats on two replicas of one PostgreSQL database', () => {
  let bench: AlertBench;
  let second: TestServer;

  beforeAll(async () => {
    bench = await AlertBench.start('postgres', 'beats-2');
    second = await startTestServer('postgres', {
      databaseUrl: databaseUrlOf(bench.server),
      runs: { background: false, clock: bench.clock.now },
    });
  });
  afterAll(async () => {
    await second?.close();
    await bench?.close();
  });

  it('records each missed period once, however many replicas look at the same time', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const created = await bench.server.api('POST', '/v1/checks/heartbeat', {
        name: `Job ${i}`,
        heartbeat: { period: 30, periodUnit: 'seconds', grace: 0, graceUnit: 'seconds' },
      });
      ids.push(created.body.id);
    }
    bench.clock.advance(30 * SECOND);
    const ticks = [bench.server, second, bench.server, second].map((s) =>
      s.server.runs.overdueHeartbeatTick(),
    );
    await Promise.all(ticks);
    const rows = await bench.server.server.runs.db.query<{ check_id: string; n: string }>(
      `SELECT check_id, count(*) AS n FROM check_sessions WHERE check_id = ANY($1::text[]) GROUP BY check_id`,
      [ids],
    );
    expect(rows).toHaveLength(20);
    for (const row of rows) expect(Number(row.n)).toBe(1);
  });
});
