/**
 * The web app as a person uses it, in Debian's Chromium (Playwright) against a real control plane and two agents
 * (two locations): sign in with the API key, watch a check turn red live when its target starts failing, open its
 * failed run, run it now, create an alert channel and send it a test, make and revoke an agent key, sign out; then
 * the same with the keyboard alone, and in the dark theme. Each page passes axe-core (no serious or critical
 * violation) and fits a 375 px screen; the pages are saved as screenshots for docs/web-app.md.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/runtimes/chromium.js';
import { startTestAgent, type TestAgent } from '../support/agent.js';
import { type Receiver, startReceiver } from '../support/receivers.js';
import { apiCheckAt, completed, FAST_RUNS, trigger } from '../support/runs.js';
import { createApiCheck, createLocation, startTestServer, type TestServer } from '../support/server.js';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SCREENSHOTS = new URL('../../docs/images/', import.meta.url);
const chromiumPath = findChromium(process.env.CHROMIUM_PATH ?? null);

/** A local service whose health answer can be switched to 500. */
async function switchableTarget(): Promise<{ url: string; fail(on: boolean): void; close(): Promise<void> }> {
  let failing = false;
  const server: Server = createServer((_request, response) => {
    response.writeHead(failing ? 500 : 200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ status: failing ? 'down' : 'ok' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/health`,
    fail: (on) => {
      failing = on;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** axe-core's serious and critical violations of the page, as "rule: target" lines. */
async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's Content-Security-Policy does not govern.
  await page.evaluate(axeSource);
  const violations = (await page.evaluate('axe.run().then((r) => r.violations)')) as {
    id: string;
    impact: string;
    nodes: { target: string[] }[];
  }[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

async function fitsNarrowScreen(page: Page): Promise<boolean> {
  return (await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')) as boolean;
}

/** What has the keyboard focus: enough to say where it is and whether a person can see it. */
interface Focused {
  tag: string;
  text: string;
  href: string | null;
  inDialog: boolean;
  /** An outline is drawn around it, and it is inside the window. */
  visible: boolean;
}

/** Evaluated in the page (as text: this project's types have no DOM). */
const FOCUSED = `(() => {
  const element = document.activeElement;
  if (!element || element === document.body) return { tag: 'body', text: '', href: null, inDialog: false, visible: false };
  const style = getComputedStyle(element);
  const box = element.getBoundingClientRect();
  return {
    tag: element.tagName.toLowerCase(),
    text: (element.getAttribute('aria-label') ?? element.textContent ?? '').replace(/\\s+/g, ' ').trim(),
    href: element.getAttribute('href'),
    inDialog: element.closest('dialog') !== null,
    visible: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2 && box.width > 0 &&
      box.right > 0 && box.bottom > 0 && box.left < window.innerWidth,
  };
})()`;

async function focused(page: Page): Promise<Focused> {
  return (await page.evaluate(FOCUSED)) as Focused;
}

/**
 * Presses Tab (or Shift+Tab) until the focus is on what `wanted` accepts, checking at every stop that the focus
 * can be seen; fails after `max` presses.
 */
async function tabTo(
  page: Page,
  wanted: (f: Focused) => boolean,
  { back = false, max = 60 }: { back?: boolean; max?: number } = {},
): Promise<Focused> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
    const now = await focused(page);
    expect(now.visible, `focus on <${now.tag}> "${now.text}" is not visible`).toBe(true);
    if (wanted(now)) return now;
  }
  throw new Error(`Tab never reached what was wanted after ${max} presses`);
}

/** The focus lands on the page's heading once the page is drawn. */
async function focusOnHeading(page: Page, name: RegExp): Promise<void> {
  await expect
    .poll(async () => focused(page), { timeout: 10_000 })
    .toMatchObject({ tag: 'h1', visible: true });
  expect((await focused(page)).text).toMatch(name);
}

describe.skipIf(!chromiumPath)('the web app in Chromium', { timeout: 180_000 }, () => {
  let server: TestServer;
  let agent: TestAgent;
  let labAgent: TestAgent;
  let target: Awaited<ReturnType<typeof switchableTarget>>;
  let browser: Browser;
  let page: Page;
  let checkId: string;
  let locationId: string;
  let agentKeyId: string;
  let receiver: Receiver;
  /** What the browser refused under the app's Content-Security-Policy, or failed to run. */
  const pageErrors: string[] = [];

  beforeAll(async () => {
    target = await switchableTarget();
    receiver = await startReceiver();
    server = await startTestServer('pglite', { runs: FAST_RUNS });
    const location = await createLocation(server, 'office');
    locationId = location.id;
    agentKeyId = location.keyId;
    agent = await startTestAgent({ url: server.url, key: location.key });
    // A second location, so that the check's page draws a line per location.
    const lab = await createLocation(server, 'lab');
    labAgent = await startTestAgent({ url: server.url, key: lab.key });
    checkId = await createApiCheck(
      server,
      apiCheckAt(target.url, {
        name: 'Shop health',
        activated: true,
        frequency: 0,
        frequencyOffset: 10,
        tags: ['shop'],
        privateLocations: ['office', 'lab'],
      }),
    );
    browser = await chromium.launch({ executablePath: chromiumPath ?? '/usr/bin/chromium' });
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) pageErrors.push(message.text());
    });
  });
  afterAll(async () => {
    await browser?.close();
    await agent?.agent.stop();
    await labAgent?.agent.stop();
    await server?.close();
    await target?.close();
    await receiver?.close();
  });

  it('signs in with the API key, which stays out of the URL and of the browser’s storage', async () => {
    await page.goto(`${server.url}/checks`);
    await page.waitForURL(/\/sign-in\?next=/);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('API key').fill('vk_wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/invalid|revoked/i);
    await page.getByLabel('API key').fill(server.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.url}/checks`);
    const stored = String(
      await page.evaluate('JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })'),
    );
    expect(stored).not.toContain(server.apiKey);
    expect(page.url()).not.toContain(server.apiKey);
    const cookies = await page.context().cookies();
    expect(cookies.map((c) => ({ name: c.name, httpOnly: c.httpOnly, sameSite: c.sameSite }))).toEqual([
      { name: 'vantage_session', httpOnly: true, sameSite: 'Strict' },
    ]);
  });

  it('shows the check passing, then failing live when its target fails, without a reload', async () => {
    const row = page.locator(`li[data-check-id="${checkId}"]`);
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 30_000 }).toBe('PASSING');
    await page.evaluate('window.notReloaded = true');
    await page.screenshot({ path: new URL('web-app-checks.png', SCREENSHOTS).pathname });
    expect(await seriousViolations(page)).toEqual([]);

    target.fail(true);
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 30_000 }).toBe('FAILING');
    expect(await row.getByText('failing').isVisible()).toBe(true);
    expect(await page.evaluate('window.notReloaded')).toBe(true);
    await page.getByLabel('State').selectOption('FAILING');
    expect(page.url()).toContain('state=FAILING');
    expect(await page.locator('.check-list > li').count()).toBe(1);
  });

  it('opens the check and its failed run: the assertion with its actual value, and the timing phases', async () => {
    await page.getByRole('link', { name: 'Shop health' }).click();
    await page.waitForURL(`${server.url}/checks/${checkId}`);
    await page.getByRole('heading', { name: /Shop health/ }).waitFor();
    await page.getByRole('heading', { name: 'Response time' }).waitFor();
    await page.getByText('Response time p95 over 24h, one line per location').waitFor();
    await page
      .getByRole('navigation', { name: 'Percentile by location' })
      .getByRole('link', { name: 'p99' })
      .click();
    await page.getByText('Response time p99 over 24h, one line per location').waitFor();
    expect(page.url()).toContain('percentile=p99');
    // Over the last hour (a point a minute), with a line for each of the two locations.
    await page.getByRole('navigation', { name: 'Window' }).getByRole('link', { name: '1h' }).click();
    await page.getByText('Response time p99 over 1h, one line per location').waitFor();
    await expect
      .poll(() => page.locator('.chart .u-legend .u-series').allTextContents(), { timeout: 30_000 })
      .toEqual(expect.arrayContaining([expect.stringContaining('lab'), expect.stringContaining('office')]));
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: new URL('web-app-check.png', SCREENSHOTS).pathname, fullPage: true });

    await page.locator('a[href^="/sessions/"]').first().click();
    await page.waitForURL(/\/sessions\//);
    await page.getByRole('heading', { name: /Run of Shop health/ }).waitFor();
    const assertions = page.getByRole('table', { name: 'Assertions' });
    await expect.poll(() => assertions.textContent()).toContain('500');
    expect(await page.getByLabel(/Timing phases/).isVisible()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: new URL('web-app-session.png', SCREENSHOTS).pathname, fullPage: true });
  });

  it('runs the check now, and reads on a 375 px screen', async () => {
    await page.goto(`${server.url}/checks/${checkId}`);
    const before = (await server.api('GET', `/v1/check-results/${checkId}?limit=100`)).body.length;
    await page.getByRole('button', { name: 'Run now' }).click();
    await page.getByText(/Run started/).waitFor();
    await expect
      .poll(async () => (await server.api('GET', `/v1/check-results/${checkId}?limit=100`)).body.length, {
        timeout: 20_000,
      })
      .toBeGreaterThan(before);

    await page.setViewportSize({ width: 375, height: 800 });
    for (const path of [
      '/checks',
      `/checks/${checkId}`,
      '/alert-channels',
      '/locations',
      `/locations/${locationId}`,
    ]) {
      await page.goto(`${server.url}${path}`);
      await page.locator('main h1').waitFor();
      expect(await fitsNarrowScreen(page), path).toBe(true);
    }
    await page.setViewportSize({ width: 1200, height: 900 });
  });

  it('shows a failing browser check’s screenshot, and opens its trace in the viewer the control plane serves', async () => {
    const created = await server.api('POST', '/v1/checks/browser', {
      name: 'Greeting',
      activated: false,
      doubleCheck: false,
      privateLocations: ['office'],
      script: `import { test, expect } from '@playwright/test';
test('greets', async ({ page }) => {
  await page.goto(process.env.SITE);
  await expect(page.locator('h1')).toHaveText('Bye', { timeout: 300 });
});`,
      environmentVariables: [{ key: 'SITE', value: target.url }],
    });
    expect(created.status).toBe(201);
    const [sessionId] = await trigger(server, [created.body.id]);
    expect((await completed(server, sessionId as string, 90_000)).status).toBe('FAILED');
    // The run recorded its screenshot (said in full when it did not: on a loaded machine a run may end without).
    const recorded = (await server.api('GET', `/v1/check-sessions/${sessionId}`)).body;
    const assets: { name: string; url: string | null }[] = recorded.results[0].browserCheckResult.assets;
    expect(assets.find((a) => a.name === 'greets-screenshot.png')?.url, JSON.stringify(recorded)).toMatch(
      /^http/,
    );

    await page.goto(`${server.url}/sessions/${sessionId}`);
    const screenshot = page.getByAltText('Screenshot greets-screenshot.png');
    await screenshot.waitFor().catch(async (error: Error) => {
      throw new Error(`${error.message}\nThe page showed: ${await page.locator('body').textContent()}`);
    });
    // Loaded from the control plane under the page's policy, with the session's cookie.
    await page.waitForFunction(
      "[...document.images].some((i) => i.alt === 'Screenshot greets-screenshot.png' && i.complete && i.naturalWidth > 0)",
    );
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: new URL('web-app-browser-run.png', SCREENSHOTS).pathname, fullPage: true });

    await page.getByRole('link', { name: /Open the trace greets-trace\.zip/ }).click();
    await page.waitForURL(/\/trace\/index\.html\?trace=/);
    // The viewer lists the test's actions, read from the trace through its service worker.
    await page
      .getByText(/toHaveText/)
      .first()
      .waitFor({ timeout: 30_000 });
    await page.screenshot({ path: new URL('web-app-trace.png', SCREENSHOTS).pathname });
  });

  it('creates an alert channel, edits it and sends it a test that reaches the receiver', async () => {
    await page.goto(`${server.url}/alert-channels`);
    await page.getByRole('heading', { name: 'New channel' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    const form = page.locator('form.channel-form').last();
    await form.getByLabel('Kind').selectOption('WEBHOOK');
    await form.getByLabel('Name').fill('On-call hook');
    await form.getByLabel('URL').fill(receiver.url('/hook'));
    await form.getByRole('button', { name: 'Create channel' }).click();
    await page.getByText('Channel created.').waitFor();

    await page.getByRole('button', { name: /^Edit webhook/ }).click();
    await page.locator('form.channel-form').first().getByLabel('URL').fill(receiver.url('/hook2'));
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Channel saved.').waitFor();

    // What is typed into the new-channel form outlives the page's redraws (here, the test's messages).
    const name = form.getByLabel('Name');
    await name.fill('Half-typed hook');
    await page.getByRole('button', { name: /^Send a test to/ }).click();
    await page.getByText(/Test sent \(200\)/).waitFor();
    expect(receiver.received.map((r) => r.url)).toContain('/hook2');
    expect(await name.inputValue()).toBe('Half-typed hook');
    await page.screenshot({
      path: new URL('web-app-alert-channels.png', SCREENSHOTS).pathname,
      fullPage: true,
    });
  });

  it('passes axe-core on every other page', async () => {
    for (const path of ['/notifications', '/error-groups', '/heartbeats', '/status-pages', '/locations']) {
      await page.goto(`${server.url}${path}`);
      await page.locator('main h1').waitFor();
      expect(await seriousViolations(page), path).toEqual([]);
    }
  });

  it('works with the keyboard alone: skip link, sections, a check and its run, a channel and its dialog, sign-out', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const keys = await context.newPage();
    keys.on('pageerror', (error) => pageErrors.push(error.message));
    try {
      await keys.goto(`${server.url}/checks`);
      await keys.waitForURL(/\/sign-in/);
      await keys.getByLabel('API key').waitFor();
      expect(await tabTo(keys, (f) => f.tag === 'input')).toMatchObject({ tag: 'input' });
      await keys.keyboard.type(server.apiKey);
      await keys.keyboard.press('Enter');
      await keys.waitForURL(`${server.url}/checks`);
      await focusOnHeading(keys, /^Checks/);

      // A fresh load: the first Tab reaches the skip link, shown on screen, which takes the focus to the content.
      await keys.reload();
      await keys.locator('main h1').waitFor();
      expect(await tabTo(keys, () => true, { max: 1 })).toMatchObject({ text: 'Skip to content' });
      await keys.keyboard.press('Enter');
      await focusOnHeading(keys, /^Checks/);

      // Through the sections: back from the heading to the navigation, and a page's heading takes the focus.
      await tabTo(keys, (f) => f.text === 'Private locations', { back: true });
      await keys.keyboard.press('Enter');
      await keys.waitForURL(`${server.url}/locations`);
      await focusOnHeading(keys, /^Private locations/);
      await tabTo(keys, (f) => f.text === 'Checks' && f.href === '/checks', { back: true });
      await keys.keyboard.press('Enter');
      await keys.waitForURL(`${server.url}/checks`);
      await focusOnHeading(keys, /^Checks/);

      // A check, then one of its runs.
      await keys.locator(`li[data-check-id="${checkId}"]`).waitFor();
      await tabTo(keys, (f) => f.text === 'Shop health');
      await keys.keyboard.press('Enter');
      await keys.waitForURL(`${server.url}/checks/${checkId}`);
      await focusOnHeading(keys, /^Shop health/);
      await keys.locator('a[href^="/sessions/"]').first().waitFor();
      await tabTo(keys, (f) => f.href?.startsWith('/sessions/') === true);
      await keys.keyboard.press('Enter');
      await keys.waitForURL(/\/sessions\//);
      await focusOnHeading(keys, /^Run of Shop health/);

      // An alert channel, made with the keyboard.
      await tabTo(keys, (f) => f.text === 'Alert channels', { back: true });
      await keys.keyboard.press('Enter');
      await keys.waitForURL(`${server.url}/alert-channels`);
      await focusOnHeading(keys, /^Alert channels/);
      await keys.getByRole('heading', { name: 'New channel' }).waitFor();
      await tabTo(keys, (f) => f.tag === 'input' && !f.inDialog);
      expect(await keys.evaluate('document.activeElement.id')).toBe('new-channel-address');
      await keys.keyboard.type('keyboard@example.test');
      await keys.keyboard.press('Enter');
      await keys.getByText('Channel created.').waitFor();

      // Its edit dialog: Space opens it, the focus is inside and stays inside, Escape closes it and the focus
      // goes back to the button that opened it. The list is read again after the message: its new entry is
      // awaited, or the Tabs back could pass the list before the entry is drawn.
      const edit = 'Edit email keyboard@example.test';
      await keys.getByRole('button', { name: edit }).waitFor();
      await tabTo(keys, (f) => f.text === edit, { back: true });
      await keys.keyboard.press('Space');
      await keys.getByRole('dialog', { name: edit }).waitFor();
      expect(await focused(keys)).toMatchObject({ tag: 'input', inDialog: true, visible: true });
      expect(await seriousViolations(keys)).toEqual([]);
      await keys.screenshot({ path: new URL('web-app-dialog.png', SCREENSHOTS).pathname });
      for (let i = 0; i < 6; i++) {
        await keys.keyboard.press('Tab');
        expect(await focused(keys)).toMatchObject({ inDialog: true, visible: true });
      }
      for (let i = 0; i < 6; i++) {
        await keys.keyboard.press('Shift+Tab');
        expect(await focused(keys)).toMatchObject({ inDialog: true, visible: true });
      }
      await keys.keyboard.press('Escape');
      await keys.getByRole('dialog').waitFor({ state: 'detached' });
      expect(await focused(keys)).toMatchObject({ tag: 'button', text: edit, visible: true });

      // Sign out, and the sign-in page takes the focus.
      await tabTo(keys, (f) => f.text === 'Sign out', { back: true });
      await keys.keyboard.press('Enter');
      await keys.waitForURL(/\/sign-in/);
      await keys.getByLabel('API key').waitFor();
      expect(await tabTo(keys, (f) => f.tag === 'input')).toMatchObject({ tag: 'input' });
    } finally {
      await context.close();
    }
  });

  it('follows a dark system theme, and passes axe-core in it', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, colorScheme: 'dark' });
    const dark = await context.newPage();
    dark.on('pageerror', (error) => pageErrors.push(error.message));
    try {
      await dark.goto(`${server.url}/sign-in`);
      expect(await dark.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(13, 17, 23)');
      expect(await seriousViolations(dark)).toEqual([]);
      await dark.getByLabel('API key').fill(server.apiKey);
      await dark.getByRole('button', { name: 'Sign in' }).click();
      await dark.waitForURL(`${server.url}/checks`);
      const failedRun = (await server.api('GET', `/v1/check-results/${checkId}?limit=100`)).body.find(
        (r: { hasFailures: boolean }) => r.hasFailures,
      );
      const pages: [string, string, () => Promise<unknown>][] = [
        ['checks', '/checks', () => dark.locator(`li[data-check-id="${checkId}"]`).waitFor()],
        ['check', `/checks/${checkId}?window=1h`, () => dark.locator('.chart canvas').first().waitFor()],
        [
          'session',
          `/sessions/${failedRun.checkSessionId}`,
          () => dark.getByRole('table', { name: 'Assertions' }).waitFor(),
        ],
        ['location', `/locations/${locationId}`, () => dark.locator('tr[data-agent-id]').first().waitFor()],
        ['alert-channels', '/alert-channels', () => dark.locator('li[data-channel-id]').first().waitFor()],
      ];
      for (const [name, path, ready] of pages) {
        await dark.goto(`${server.url}${path}`);
        await dark.locator('main h1').waitFor();
        await ready();
        expect(await seriousViolations(dark), path).toEqual([]);
        await dark.screenshot({
          path: new URL(`web-app-${name}-dark.png`, SCREENSHOTS).pathname,
          fullPage: true,
        });
      }
      for (const path of ['/locations', '/notifications', '/error-groups', '/heartbeats', '/status-pages']) {
        await dark.goto(`${server.url}${path}`);
        await dark.locator('main h1').waitFor();
        expect(await seriousViolations(dark), path).toEqual([]);
      }
    } finally {
      await context.close();
    }
  });

  it('shows the location’s agent, makes a second key shown once, and revokes the agent’s key', async () => {
    await page.goto(`${server.url}/locations/${locationId}`);
    await page.getByRole('heading', { name: /office/ }).waitFor();
    const agentRow = page.locator(`tr[data-agent-id="${agent.agent.agentId}"]`);
    await agentRow.waitFor();
    expect(await agentRow.textContent()).toMatch(/connected.*\d+ \/ \d+ light/);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Create a key' }).click();
    const shown = (await page.getByTestId('new-key').textContent()) ?? '';
    expect(shown).toMatch(/^pl_/);
    await page.screenshot({ path: new URL('web-app-location.png', SCREENSHOTS).pathname, fullPage: true });

    const before = (await server.api('GET', `/v1/private-locations/${locationId}`)).body.keys;
    const agentKey = before.find((k: { id: string }) => k.id === agentKeyId);
    await page.getByRole('button', { name: `Revoke ${agentKey.maskedKey}` }).click();
    const confirm = page.getByRole('dialog', { name: `Revoke ${agentKey.maskedKey}?` });
    await confirm.waitFor();
    // The safe answer has the focus (given once the dialog has drawn).
    await expect.poll(() => focused(page)).toMatchObject({ tag: 'button', text: 'Cancel' });
    await confirm.getByRole('button', { name: 'Revoke', exact: true }).click();
    await page.getByText(`Revoked ${agentKey.maskedKey}.`).waitFor();
    await expect
      .poll(async () => (await server.api('GET', `/v1/private-locations/${locationId}`)).body.agents.count, {
        timeout: 15_000,
      })
      .toBe(0);
    expect(await page.getByTestId('new-key').count()).toBe(0);
  });

  it('signs out: the session ends, and the pages ask to sign in again', async () => {
    await page.goto(`${server.url}/checks`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/sign-in/);
    await page.goto(`${server.url}/checks/${checkId}`);
    await page.waitForURL(/\/sign-in\?next=/);
  });

  it('ran every page under its Content-Security-Policy without a refusal or an error', () => {
    expect(pageErrors).toEqual([]);
  });
});
