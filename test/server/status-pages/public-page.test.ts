import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Browser, chromium } from 'playwright-core';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../../src/runtimes/chromium.js';
import { ROLLUP_GRACE_MS } from '../../../src/server/retention/rollups.js';
import { STORES, type TestServer } from '../../support/server.js';
import { AlertBench } from '../alerts/support.js';

const HOUR = 3_600_000;
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

describe.each(STORES)('public status pages (%s)', (store) => {
  let bench: AlertBench;
  let server: TestServer;
  let browser: Browser;
  /** The day (UTC) of the runs: moving the clock past their hour's roll-up may cross midnight. */
  let runDay: string;
  const slug = `acme-${store}`;
  const domain = `status.${store}.acme.test`;

  beforeAll(async () => {
    bench = await AlertBench.start(store, 'public');
    server = bench.server;
    browser = await chromium.launch({ executablePath: findChromium(null) ?? '/usr/bin/chromium' });

    const service = async (name: string) =>
      (await server.api('POST', '/v1/status-pages/services', { name })).body.id;
    const api = await service('API');
    const checkout = await service('Checkout');
    // Activated, as the checks that feed a service are; the test's clock runs no scheduler tick.
    const check = await bench.check([], {
      activated: true,
      tags: ['shop'],
      triggerIncident: {
        serviceId: api,
        name: 'API errors',
        description: 'Requests fail.',
        notifySubscribers: false,
      },
    });
    const healthy = await bench.check([], {
      activated: true,
      triggerIncident: {
        serviceId: checkout,
        name: 'Checkout down',
        description: '-',
        notifySubscribers: false,
      },
    });
    const page = await server.api('POST', '/v1/status-pages', {
      name: 'Acme <Shop>',
      url: slug,
      customDomain: domain,
      cards: [{ name: 'Platform', services: [{ id: api }, { id: checkout }] }],
    });
    expect(page.status).toBe(201);
    const starts = new Date(bench.clock.now().getTime() + 2 * 86_400_000);
    const window = await server.api('POST', '/v1/maintenance-windows', {
      name: 'Database upgrade',
      tags: ['shop'],
      startsAt: starts.toISOString(),
      endsAt: new Date(starts.getTime() + HOUR).toISOString(),
    });
    expect(window.status).toBe(201);
    const update = await server.api(
      'POST',
      `/v1/maintenance-windows/${window.body.id}/maintenances/0/updates`,
      {
        description: 'The database moves to PostgreSQL 17; the API is read-only for an hour.',
      },
    );
    expect(update.status).toBe(201);
    expect(update.body.updates).toEqual([
      expect.objectContaining({
        maintenanceWindowId: window.body.id,
        maintenanceId: '0',
        status: 'SCHEDULED',
        previousStatus: 'SCHEDULED',
        previousStartsAt: starts.toISOString(),
        notifySubscribers: false,
      }),
    ]);
    await server.api('POST', '/v1/status-pages/incidents', {
      serviceId: checkout,
      name: 'Slow payments',
      description: 'Payments take long.',
      severity: 'MINOR',
      status: 'RESOLVED',
    });

    // Runs of the last hour, rolled up: the API's check passed and failed, the checkout's passed. An hour is rolled
    // up ROLLUP_GRACE_MS after it ends: the clock moves past that, whatever minute of the hour the test starts at.
    await bench.session(check, 'PASSED');
    await bench.session(healthy, 'PASSED');
    await bench.session(check, 'FAILED');
    runDay = bench.clock.now().toISOString().slice(0, 10);
    bench.clock.advance(HOUR + ROLLUP_GRACE_MS + 60_000);
    await server.server.runs.retentionTick();
  });
  afterAll(async () => {
    await browser?.close();
    await bench?.close();
  });

  it('serves the page at /status/{url} without a key: states, incidents, maintenance, under 100 KB, no script', async () => {
    const response = await fetch(`${server.url}/status/${slug}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(response.headers.get('content-security-policy')).toMatch(/default-src 'none'; style-src 'sha256-/);
    expect(response.headers.get('cache-control')).toBe('public, max-age=30');
    const html = await response.text();
    expect(Buffer.byteLength(html)).toBeLessThan(100_000);
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);
    expect(html).toContain('Acme &lt;Shop&gt;');
    expect((await fetch(`${server.url}/status/nobody-${store}`)).status).toBe(404);
  });

  it('reads as a customer would in Chromium, on a phone too, and axe-core finds nothing serious', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      // bypassCSP: the page lets no script run, axe-core's included.
      const page = await browser.newPage({
        viewport: { width: 375, height: 800 },
        colorScheme,
        bypassCSP: true,
      });
      await page.goto(`${server.url}/status/${slug}`);
      expect(await page.locator('h1').textContent()).toBe('Acme <Shop>');
      expect(await page.getByRole('status').textContent()).toBe('Major outage');
      const services = page.locator('.service');
      expect(await services.locator('h3').allTextContents()).toEqual(['API', 'Checkout']);
      expect(await services.locator('.state').allTextContents()).toEqual(['Major outage', 'Operational']);
      expect(await services.first().locator('.bars li').count()).toBe(90);
      expect(await services.first().locator(`.bars li[title^="${runDay}"]`).getAttribute('title')).toMatch(
        /: 50 % up, 1 incident$/,
      );
      expect(await services.first().textContent()).toContain('50 % uptime over 90 days, incidents on 1 day');
      const current = page.locator('section', {
        has: page.getByRole('heading', { name: 'Current incidents' }),
      });
      expect(await current.textContent()).toContain('API errors');
      expect(await current.textContent()).toContain('Investigating – Requests fail.');
      const past = page.locator('section', { has: page.getByRole('heading', { name: 'Past incidents' }) });
      expect(await past.textContent()).toContain('Slow payments');
      const maintenance = page.locator('section', {
        has: page.getByRole('heading', { name: 'Maintenance' }),
      });
      expect(await maintenance.textContent()).toContain('Database upgrade (Scheduled)');
      expect(await maintenance.textContent()).toContain('Scheduled – The database moves to PostgreSQL 17');
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);

      await page.addScriptTag({ content: axeSource });
      const violations = (await page.evaluate(
        'axe.run().then((r) => r.violations.map((v) => v.impact + " " + v.id))',
      )) as string[];
      expect(violations.filter((v) => v.startsWith('serious') || v.startsWith('critical'))).toEqual([]);
      await page.close();
    }
  });

  it('serves the same page on its custom domain, and the incidents as JSON and Atom beside it', async () => {
    // fetch() sends its own Host header: undici's request sends the one a browser on that domain would.
    const onDomain = await request(`${server.url}/`, { headers: { host: domain } });
    expect(onDomain.statusCode).toBe(200);
    expect(await onDomain.body.text()).toContain('Acme &lt;Shop&gt;');
    const json = (await (await fetch(`${server.url}/status/${slug}/incidents.json`)).json()) as any;
    expect(json.page).toMatchObject({ name: 'Acme <Shop>', state: 'MAJOR_OUTAGE' });
    expect(json.incidents.map((i: { name: string; status: string }) => `${i.name} ${i.status}`)).toEqual(
      expect.arrayContaining(['API errors INVESTIGATING', 'Slow payments RESOLVED']),
    );
    const atom = await fetch(`${server.url}/status/${slug}/feed.atom`);
    expect(atom.headers.get('content-type')).toContain('application/atom+xml');
    const feed = await atom.text();
    expect(feed).toContain('<feed xmlns="http://www.w3.org/2005/Atom">');
    expect(feed.match(/<entry>/g)).toHaveLength(2);
    expect(feed).toContain(`<link rel="self" href="http://127.0.0.1/status/${slug}/feed.atom"/>`);
    const domainFeed = await (
      await request(`${server.url}/feed.atom`, { headers: { host: domain } })
    ).body.text();
    expect(domainFeed).toContain(`<id>http://${domain}</id>`);
  });

  it('keeps a page address and custom domain to one page on the server', async () => {
    const again = await server.api('POST', '/v1/status-pages', { name: 'Copy', url: slug, cards: [] });
    expect(again.status).toBe(409);
    const domainAgain = await server.api('POST', '/v1/status-pages', {
      name: 'Copy',
      url: `${slug}-2`,
      customDomain: domain,
      cards: [],
    });
    expect(domainAgain.status).toBe(409);
  });
});
