import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer, type TestServer } from '../../support/http-servers.js';
import { cleanUp, runScript, scriptCheck } from './support.js';

let api: TestServer;

beforeAll(async () => {
  api = await startHttpServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ path: req.url, items: 3 }));
  });
});

afterAll(() => api.close());

const multiStep = (script: string, fields: Record<string, unknown> = {}) =>
  scriptCheck({
    checkType: 'MULTI_STEP',
    script: `import { test, expect } from '@playwright/test';\n${script}`,
    environmentVariables: [{ key: 'API', value: api.origin }],
    ...fields,
  });

describe('MULTI_STEP checks', () => {
  it('run with the request API and no browser: a test that asks for a page fails, saying why', async () => {
    const outcome = await runScript(
      multiStep(`
        test('cart', async ({ request }) => {
          const response = await request.get(process.env.API + '/cart');
          expect(response.ok()).toBe(true);
          expect(await response.json()).toEqual({ path: '/cart', items: 3 });
        });
        test('page', async ({ page }) => {
          await page.goto(process.env.API);
        });`),
    );
    expect(outcome.status).toBe('FAILED');
    expect(outcome.detail.tests.map((t) => [t.title, t.status])).toEqual([
      ['cart', 'passed'],
      ['page', 'failed'],
    ]);
    expect(outcome.detail.errors).toEqual([
      'page: MULTI_STEP checks run without a browser: use the request fixture, not page, context or browser',
    ]);
    await cleanUp(outcome);
  });

  it('run on the runtime the check names', async () => {
    const outcome = await runScript(
      multiStep(
        `test('versions', async ({ request }) => {
          console.log('playwright', require('@playwright/test/package.json').version, process.env.RUNTIME_VERSION);
          expect((await request.get(process.env.API)).status()).toBe(200);
        });`,
        { runtimeId: '2025.04' },
      ),
    );
    expect(outcome.status).toBe('PASSED');
    expect(outcome.detail.logs.map((l) => l.msg)).toContain('playwright 1.51.1 2025.04');
    await cleanUp(outcome);
  });
});
