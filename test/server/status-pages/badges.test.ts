import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, type TestServer } from '../../support/server.js';
import { AlertBench } from '../alerts/support.js';

describe.each(STORES)('badges for READMEs (%s)', (store) => {
  let bench: AlertBench;
  let server: TestServer;

  beforeAll(async () => {
    bench = await AlertBench.start(store, 'badges');
    server = bench.server;
  });
  afterAll(async () => bench?.close());

  /** The badge's SVG and the words it shows (its title holds "label: message"). */
  const badge = async (path: string) => {
    const answer = await fetch(`${server.url}${path}`);
    const body = await answer.text();
    return {
      status: answer.status,
      type: answer.headers.get('content-type'),
      body,
      title: /<title>([^<]*)<\/title>/.exec(body)?.[1],
    };
  };

  it('shows a check’s state and uptime, without a key', async () => {
    const check = await bench.check([], { activated: true, name: 'Checkout API' });
    expect((await badge(`/v1/badges/checks/${check}`)).title).toBe('Checkout API: no data');
    await bench.session(check, 'PASSED');
    const passing = await badge(`/v1/badges/checks/${check}?label=checkout`);
    expect(passing.type).toContain('image/svg+xml');
    expect(passing.body).toMatch(/^<svg/);
    expect(passing.title).toBe('checkout: passing');
    await bench.session(check, 'FAILED');
    expect((await badge(`/v1/badges/checks/${check}`)).title).toBe('Checkout API: failing');
    // Two hours on: the sessions' hour is rolled up 5 minutes after it ends (ROLLUP_GRACE_MS), so one hour on was
    // not enough when the test ran in the first 5 minutes of an hour.
    bench.clock.advance(2 * 3_600_000);
    await server.server.runs.retentionTick();
    expect((await badge(`/v1/badges/checks/${check}/uptime?days=7`)).title).toBe('Checkout API: 50 % (7 d)');
    await server.api('PUT', `/v1/checks/${check}`, { activated: false });
    expect((await badge(`/v1/badges/checks/${check}`)).title).toBe('Checkout API: paused');
  });

  it('shows a status-page service’s state as its page does, and its uptime', async () => {
    const serviceId = (await server.api('POST', '/v1/status-pages/services', { name: 'Payments' })).body.id;
    expect((await badge(`/v1/badges/services/${serviceId}`)).title).toBe('Payments: operational');
    await server.api('POST', '/v1/status-pages/incidents', {
      serviceId,
      name: 'Slow',
      description: 'Slow payments.',
      severity: 'MINOR',
    });
    expect((await badge(`/v1/badges/services/${serviceId}`)).title).toBe('Payments: degraded performance');
    expect((await badge(`/v1/badges/services/${serviceId}/uptime`)).title).toBe('Payments: no data');
  });

  it('answers 404 for an unknown check or service, and 400 naming `days` for a window it does not keep', async () => {
    expect((await badge(`/v1/badges/checks/${randomUUID()}`)).status).toBe(404);
    expect((await badge(`/v1/badges/services/${randomUUID()}/uptime`)).status).toBe(404);
    const check = await bench.check([]);
    const bad = await fetch(`${server.url}/v1/badges/checks/${check}/uptime?days=365`);
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('days');
  });
});
