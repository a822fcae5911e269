/**
 * Videos of BROWSER runs, recorded by the runtime's Playwright with Debian's ffmpeg (which .ci/run installs):
 * asked for by the agent (VANTAGE_BROWSER_VIDEO, here the executor's option) or by the script (test.use).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserExecutor } from '../../../src/executors/browser/index.js';
import type { Executor } from '../../../src/executors/types.js';
import { startHttpServer, type TestServer } from '../../support/http-servers.js';
import { cleanUp, noChromium, runScript, scriptCheck } from './support.js';

const FFMPEG = '/usr/bin/ffmpeg';
const noFfmpeg = !existsSync(FFMPEG) && !process.env.CI;
if (noFfmpeg) console.warn('skipping the video tests: no /usr/bin/ffmpeg (apt-get install ffmpeg)');

let site: TestServer;
beforeAll(async () => {
  site = await startHttpServer((_req, res) =>
    res.setHeader('content-type', 'text/html').end('<h1 style="font-size:80px">Moving</h1>'),
  );
});
afterAll(() => site.close());

const check = (script: string) =>
  scriptCheck({
    checkType: 'BROWSER',
    script: `import { test, expect } from '@playwright/test';\n${script}`,
    environmentVariables: [{ key: 'SITE', value: site.origin }],
  });

/** What ffprobe says of the file's first video stream: codec and frame count. */
async function probe(path: string): Promise<{ codec: string; frames: number }> {
  const { stdout } = await promisify(execFile)('ffprobe', [
    ...['-v', 'error', '-count_frames', '-select_streams', 'v:0'],
    ...['-show_entries', 'stream=codec_name,nb_read_frames', '-of', 'json', path],
  ]);
  const stream = JSON.parse(stdout).streams[0];
  return { codec: stream.codec_name, frames: Number(stream.nb_read_frames) };
}

const PAGE_VISIT = `
  await page.goto(process.env.SITE);
  await expect(page.locator('h1')).toHaveText('Moving');
  await page.waitForTimeout(600);`;

describe.skipIf(noChromium || noFfmpeg)('videos of BROWSER runs', () => {
  it('are recorded for every run with video "on", as a WebM artifact that plays', async () => {
    const execute = createBrowserExecutor({ video: 'on' }) as Executor;
    const outcome = await runScript(check(`test('visit', async ({ page }) => {${PAGE_VISIT}\n});`), {
      executors: { BROWSER: execute },
    });
    expect(outcome.status, JSON.stringify(outcome.detail.errors)).toBe('PASSED');
    const video = outcome.attempt.artifacts?.find((a) => a.contentType === 'video/webm');
    expect(video?.name).toBe('visit-video.webm');
    expect(video?.size).toBeGreaterThan(1000);
    const played = await probe(video?.path ?? '');
    expect(played.codec).toBe('vp8');
    expect(played.frames).toBeGreaterThan(5);
    await cleanUp(outcome);
  });

  it('are kept only for failed runs with "retain-on-failure"', { timeout: 90_000 }, async () => {
    const execute = createBrowserExecutor({ video: 'retain-on-failure' }) as Executor;
    const passed = await runScript(check(`test('fine', async ({ page }) => {${PAGE_VISIT}\n});`), {
      executors: { BROWSER: execute },
    });
    expect(passed.status).toBe('PASSED');
    expect(passed.detail.assets.filter((a) => a.contentType === 'video/webm')).toEqual([]);
    await cleanUp(passed);

    const failed = await runScript(
      check(`test('broken', async ({ page }) => {${PAGE_VISIT}
  await expect(page.locator('h1')).toHaveText('Still', { timeout: 300 });\n});`),
      { executors: { BROWSER: execute } },
    );
    expect(failed.status).toBe('FAILED');
    expect(failed.detail.assets.map((a) => a.name)).toContain('broken-video.webm');
    await cleanUp(failed);
  });

  it('are recorded when the script asks with test.use, whatever the agent setting', async () => {
    const outcome = await runScript(
      check(`test.use({ video: 'on' });\ntest('asked', async ({ page }) => {${PAGE_VISIT}\n});`),
      { executors: { BROWSER: createBrowserExecutor({ video: 'off' }) as Executor } },
    );
    expect(outcome.status).toBe('PASSED');
    const video = outcome.attempt.artifacts?.find((a) => a.name === 'asked-video.webm');
    expect((await probe(video?.path ?? '')).frames).toBeGreaterThan(5);
    await cleanUp(outcome);
  });
});
