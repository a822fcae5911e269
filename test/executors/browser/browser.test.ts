import { randomUUID } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer, type TestServer } from '../../support/http-servers.js';
import { cleanUp, noChromium, processesWith, runScript, scriptCheck } from './support.js';

let site: TestServer;

beforeAll(async () => {
  site = await startHttpServer((req, res) => {
    res.setHeader('content-type', 'text/html');
    if (req.url === '/broken') {
      res.end(`<h1>Broken</h1><script>
        console.error('from the page');
        setTimeout(() => { throw new Error('page went wrong'); });
      </script>`);
      return;
    }
    res.end('<title>Shop</title><h1>Welcome</h1>');
  });
});

afterAll(() => site.close());

const browserCheck = (script: string, fields: Record<string, unknown> = {}) =>
  scriptCheck({
    checkType: 'BROWSER',
    script: `import { test, expect } from '@playwright/test';\n${script}`,
    environmentVariables: [{ key: 'SITE', value: site.origin }],
    ...fields,
  });

describe.skipIf(noChromium)('BROWSER checks', () => {
  it('pass when the script does, with its tests, its log (page console and errors, failed requests) and a trace', async () => {
    const outcome = await runScript(
      browserCheck(`
        test('home page', async ({ page }) => {
          await page.goto(process.env.SITE + '/broken');
          await expect(page.locator('h1')).toHaveText('Broken');
          await page.evaluate(() => fetch('http://127.0.0.1:9/unreachable').catch(() => {}));
          await page.waitForTimeout(200);
          console.log('checked', process.env.CHECK_NAME, process.env.REGION);
        });`),
    );
    expect(outcome.status).toBe('PASSED');
    expect(outcome.detail.errors).toEqual([]);
    expect(outcome.detail.tests).toMatchObject([
      { title: 'home page', status: 'passed', outcome: 'expected' },
    ]);
    const log = outcome.detail.logs.map((l) => `${l.level} ${l.msg}`);
    expect(log).toContainEqual(expect.stringMatching(/^INFO checked script \w+ test-location$/));
    expect(log).toContain('ERROR console.error: from the page');
    expect(log).toContainEqual(expect.stringMatching(/^ERROR page error: Error: page went wrong/));
    expect(log).toContainEqual(
      expect.stringMatching(/^WARN request failed: GET http:\/\/127.0.0.1:9\/unreachable/),
    );
    expect(outcome.detail.assets).toMatchObject([
      { name: 'home-page-trace.zip', contentType: 'application/zip' },
    ]);
    const trace = outcome.attempt.artifacts?.[0];
    expect((await stat(trace?.path ?? '')).size).toBe(trace?.size);
    await cleanUp(outcome);
  });

  it('fail on a failing expect, with its error and a screenshot that arrives as an artifact', async () => {
    const outcome = await runScript(
      browserCheck(`
        test('greets', async ({ page }) => {
          await page.goto(process.env.SITE);
          await expect(page.locator('h1')).toHaveText('Goodbye', { timeout: 500 });
        });`),
    );
    expect(outcome.status).toBe('FAILED');
    expect(outcome.attempt.hasFailures).toBe(true);
    expect(outcome.attempt.error).toBe('greets: Error: expect(locator).toHaveText(expected) failed');
    expect(outcome.detail.errors[0]).toContain('Expected: "Goodbye"\nReceived: "Welcome"');
    const screenshot = outcome.attempt.artifacts?.find((a) => a.contentType === 'image/png');
    expect(screenshot?.name).toBe('greets-screenshot.png');
    const png = await readFile(screenshot?.path ?? '');
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(outcome.detail.assets).toContainEqual({
      name: 'greets-screenshot.png',
      contentType: 'image/png',
      size: png.length,
      url: null,
    });
    await cleanUp(outcome);
  });

  it('fail on an uncaught error in the script', async () => {
    const outcome = await runScript(
      browserCheck(`
        test('throws', async ({ page }) => {
          await page.goto(process.env.SITE);
          JSON.parse('{not json');
        });`),
    );
    expect(outcome.status).toBe('FAILED');
    expect(outcome.attempt.error).toMatch(/^throws: SyntaxError: /);
    await cleanUp(outcome);
  });

  it('are degraded when the script says so', async () => {
    const outcome = await runScript(
      browserCheck(`
        import { markCheckAsDegraded } from '@vantage/playwright-helpers';
        test('slow search', async ({ page }) => {
          await page.goto(process.env.SITE);
          markCheckAsDegraded('search took 4 s');
        });`),
    );
    expect(outcome.status).toBe('DEGRADED');
    expect(outcome.detail.logs.map((l) => l.msg)).toContain('marked degraded: search took 4 s');
    await cleanUp(outcome);
  });

  it('that hang are killed at their limit: TIMED_OUT, and no process of the run is left', async () => {
    const tag = randomUUID();
    const outcome = await runScript(
      browserCheck(
        `import { spawn } from 'node:child_process';
        test('hangs', async ({ page }) => {
          await page.goto(process.env.SITE);
          spawn('sleep', ['600'], { detached: true, stdio: 'ignore' }).unref();
          console.log('waiting forever');
          await new Promise(() => {});
        });`,
        {
          environmentVariables: [
            { key: 'SITE', value: site.origin },
            { key: 'RUN_TAG', value: tag },
          ],
        },
      ),
      { limitMs: 6000 },
    );
    expect(outcome.status).toBe('TIMED_OUT');
    expect(outcome.attempt.error).toBe('the run exceeded its execution limit of 6000 ms');
    expect(outcome.detail.logs.map((l) => l.msg)).toContain('waiting forever');
    expect(await processesWith(`RUN_TAG=${tag}`)).toEqual([]);
  });

  it('keep the screenshots a script saves itself as artifacts', async () => {
    const outcome = await runScript(
      browserCheck(`
        test('shots', async ({ page }) => {
          await page.goto(process.env.SITE);
          await page.screenshot({ path: 'home.png' });
          await page.screenshot({ path: 'shots/cart.jpeg', type: 'jpeg' });
        });`),
    );
    expect(outcome.status).toBe('PASSED');
    const pictures = (outcome.attempt.artifacts ?? []).filter((a) => a.contentType.startsWith('image/'));
    expect(pictures.map(({ name, contentType }) => ({ name, contentType }))).toEqual([
      { name: 'home.png', contentType: 'image/png' },
      { name: 'shots-cart.jpeg', contentType: 'image/jpeg' },
    ]);
    const [png, jpeg] = await Promise.all(pictures.map((p) => readFile(p.path)));
    expect(png?.subarray(1, 4).toString()).toBe('PNG');
    expect(jpeg?.subarray(0, 2).toString('hex')).toBe('ffd8');
    expect(outcome.detail.assets.map((a) => a.name)).toEqual(
      expect.arrayContaining(['home.png', 'shots-cart.jpeg']),
    );
    await cleanUp(outcome);
  });

  it('mask secret variables in errors and logs, in URL-encoded form too', async () => {
    const outcome = await runScript(
      browserCheck(
        `test('leaks', async ({ page }) => {
          console.log('token', process.env.TOKEN, encodeURIComponent(process.env.TOKEN));
          throw new Error('bad token ' + process.env.TOKEN);
        });`,
        {
          environmentVariables: [{ key: 'TOKEN', value: 'p@ss word/1', secret: true }],
        },
      ),
    );
    const text = JSON.stringify(outcome.detail);
    expect(text).not.toContain('p@ss word/1');
    expect(text).not.toContain(encodeURIComponent('p@ss word/1'));
    expect(outcome.detail.logs.map((l) => l.msg)).toContain('token ***** *****');
    expect(outcome.attempt.error).toBe('leaks: Error: bad token *****');
    await cleanUp(outcome);
  });

  it('cannot run on a runtime this machine lacks, and say which it has', async () => {
    const outcome = await runScript(browserCheck(`test('x', async () => {});`, { runtimeId: '2024.09' }));
    expect(outcome.status).toBe('FAILED');
    expect(outcome.attempt.error).toBe(
      'BROWSER check cannot run: runtime 2024.09 is not available here (available: 2026.04, 2025.04)',
    );
  });
});
