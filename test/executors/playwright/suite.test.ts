import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAYWRIGHT_ENGINES } from '../../../src/checks/index.js';
import { createPlaywrightExecutor } from '../../../src/executors/playwright/index.js';
import type { Executor } from '../../../src/executors/types.js';
import { findEngine } from '../../../src/runtimes/index.js';
import type { TestServer } from '../../support/http-servers.js';
import { cleanUp, noChromium, processesWith, runScript, scriptCheck } from '../browser/support.js';
import { INSTALL, noEngine, packSuite, runtimesDir, startShop, suiteVariables } from './suite-fixture.js';

let shop: TestServer;
let dir: string;
let bundle: string;
let installLog: string;
let execute: Executor;

beforeAll(async () => {
  shop = await startShop();
  dir = await mkdtemp(join(tmpdir(), 'vantage-suite-'));
  // Scripts may run as another user: the install command writes its log where anyone can.
  await chmod(dir, 0o777);
  bundle = join(dir, 'bundle.tar.gz');
  installLog = join(dir, 'installs.log');
  await packSuite(bundle);
  execute = createPlaywrightExecutor({ cacheDir: join(dir, 'cache') }) as Executor;
});

afterAll(async () => {
  await shop.close();
  await rm(dir, { recursive: true, force: true });
});

const suiteCheck = (fields: Record<string, unknown> = {}, variables: { key: string; value: string }[] = []) =>
  scriptCheck({
    checkType: 'PLAYWRIGHT',
    codeBundlePath: bundle,
    playwrightConfigPath: 'playwright.config.js',
    installCommand: INSTALL,
    pwProjects: ['desktop', 'phone'],
    pwTags: ['@smoke', '@cart'],
    engine: 'node22',
    environmentVariables: [...suiteVariables(shop, installLog), ...variables],
    ...fields,
  });

const installs = async () =>
  (await readFile(installLog, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;

describe.skipIf(noChromium || noEngine)('PLAYWRIGHT check suites', () => {
  it('run the chosen projects and tags; the second run installs from the cache', {
    timeout: 120_000,
  }, async () => {
    const first = await runScript(suiteCheck(), { executors: { PLAYWRIGHT: execute } });
    expect(first.status).toBe('PASSED');
    expect(first.detail.tests.map((t) => `${t.project}: ${t.title} ${t.status}`)).toEqual([
      'desktop: home page shows the shop @smoke passed',
      'desktop: cart is empty passed',
      'phone: home page shows the shop @smoke passed',
      'phone: cart is empty passed',
    ]);
    const log = first.detail.logs.map((l) => l.msg);
    expect(log).toContain(
      "$ npx playwright test --config playwright.config.js --project desktop --project phone --grep '@smoke|@cart'",
    );
    expect(log).toEqual(expect.arrayContaining(['viewport 1280', 'viewport 390']));
    expect(first.detail.assets).toMatchObject([
      { name: 'playwright-report.tar.gz', contentType: 'application/gzip' },
    ]);
    const report = first.attempt.artifacts?.[0]?.path ?? '';
    const listing = await promisify(execFile)('tar', ['-tzf', report]);
    expect(listing.stdout).toContain('./index.html');
    expect(await installs()).toBe(1);
    await cleanUp(first);

    // Failing now, with the suite's videos kept for failed tests (recorded with the system's ffmpeg).
    const second = await runScript(
      suiteCheck({}, [
        { key: 'EXPECTED_ITEMS', value: '3' },
        { key: 'SUITE_VIDEO', value: 'retain-on-failure' },
      ]),
      {
        executors: { PLAYWRIGHT: execute },
      },
    );
    expect(await installs()).toBe(1);
    expect(second.detail.logs.map((l) => l.msg)).toContainEqual(
      expect.stringMatching(/^dependencies restored from the cache/),
    );
    expect(second.status).toBe('FAILED');
    expect(second.detail.errors.map((e) => e.split('\n')[0])).toEqual([
      '[desktop] cart is empty: Error: expect(locator).toHaveText(expected) failed',
      '[phone] cart is empty: Error: expect(locator).toHaveText(expected) failed',
    ]);
    expect(second.detail.assets.map((a) => a.name)).toEqual(
      expect.arrayContaining([
        'desktop-cart-is-empty-trace.zip',
        'phone-cart-is-empty-trace.zip',
        'desktop-cart-is-empty-video.webm',
        'phone-cart-is-empty-video.webm',
      ]),
    );
    // Only the two failed tests keep theirs.
    expect(second.detail.assets.filter((a) => a.contentType === 'video/webm')).toHaveLength(2);
    await cleanUp(second);
  });

  it('stop when the run is cancelled, leaving no process', async () => {
    const tag = `suite-${Date.now()}`;
    const controller = new AbortController();
    const running = runScript(
      suiteCheck({ pwProjects: ['desktop'], pwTags: ['@hang'] }, [{ key: 'RUN_TAG', value: tag }]),
      { executors: { PLAYWRIGHT: execute }, signal: controller.signal },
    );
    // Cancelled once the suite's browser is up.
    const deadline = Date.now() + 30_000;
    while ((await processesWith(`RUN_TAG=${tag}`, /chrom/)).length === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
    }
    controller.abort();
    const outcome = await running;
    expect(outcome.status).toBe('CANCELLED');
    expect(await processesWith(`RUN_TAG=${tag}`)).toEqual([]);
    await cleanUp(outcome);
  });
});

/** The other engines, each from its registry package (npm ci in runtimes/engines/<id>, as .ci/run does). */
const otherEngines = [
  ['node24', 'npx playwright test', /^engine node v24\./],
  ['node26', 'npx playwright test', /^engine node v26\./],
  ['bun1.3', 'bunx playwright test', /^engine bun 1\.3\./],
] as const;

describe.skipIf(noChromium).each(otherEngines)(
  'a PLAYWRIGHT check suite on %s',
  (engine, testCommand, ran) => {
    const missing = !findEngine(engine, runtimesDir);
    it.skipIf(missing && !process.env.CI)(`runs its tests with that engine (${testCommand})`, async () => {
      const outcome = await runScript(
        suiteCheck({ engine, testCommand, pwProjects: ['desktop'], pwTags: ['@smoke'] }),
        { executors: { PLAYWRIGHT: execute } },
      );
      expect(outcome.status, JSON.stringify(outcome.detail.errors)).toBe('PASSED');
      expect(outcome.detail.tests.map((t) => `${t.project}: ${t.title} ${t.status}`)).toEqual([
        'desktop: home page shows the shop @smoke passed',
      ]);
      const log = outcome.detail.logs.map((l) => l.msg);
      expect(log).toContainEqual(expect.stringMatching(ran));
      expect(log).toContain(`$ ${testCommand} --config playwright.config.js --project desktop --grep @smoke`);
      await cleanUp(outcome);
    });
  },
);

describe('PLAYWRIGHT check suites that cannot run', () => {
  it('name the engines there are when the chosen one is missing', async () => {
    // With no engine packages, the only engine is this process's own Node.js, when the model has its major.
    const host = `node${process.versions.node.split('.')[0]}`;
    const hostEngine = (PLAYWRIGHT_ENGINES as readonly string[]).includes(host) ? host : null;
    const chosen = hostEngine === 'node22' ? 'node26' : 'node22';
    const empty = await mkdtemp(join(tmpdir(), 'vantage-no-engines-'));
    const outcome = await runScript(suiteCheck({ engine: chosen }), {
      executors: { PLAYWRIGHT: createPlaywrightExecutor({ runtimesDir: empty }) as Executor },
    });
    await rm(empty, { recursive: true });
    expect(outcome.status).toBe('FAILED');
    expect(outcome.attempt.error).toBe(
      `PLAYWRIGHT check cannot run: engine ${chosen} is not available here (available: ${hostEngine ?? 'none is installed'})`,
    );
  });

  it('fail before running when the code bundle is not there', async () => {
    const outcome = await runScript(suiteCheck({ codeBundlePath: join(dir, 'missing.tar.gz') }), {
      executors: { PLAYWRIGHT: execute },
    });
    expect(outcome.status).toBe('FAILED');
    expect(outcome.attempt.error).toBe(`the code bundle ${join(dir, 'missing.tar.gz')} does not exist`);
  });
});
