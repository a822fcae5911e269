import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptSettingsFromEnv } from '../../../src/runtimes/index.js';
import { runCli, sessionsByName } from '../../support/cli.js';
import { startHttpServer, type TestServer } from '../../support/http-servers.js';
import { noChromium } from './support.js';

let site: TestServer;
let dir: string;

beforeAll(async () => {
  site = await startHttpServer((_req, res) => res.setHeader('content-type', 'text/html').end('<h1>Hi</h1>'));
  dir = await mkdtemp(join(tmpdir(), 'vantage-browser-run-'));
});

afterAll(async () => {
  await site.close();
  await rm(dir, { recursive: true, force: true });
});

const AGENT_KEY = 'pl_acct.private-1.do-not-leak-this-key';
/** Only an agent running as root runs scripts as another user, which keeps its /proc entries closed to them. */
const otherUser = scriptSettingsFromEnv().scriptUser !== null;

describe.skipIf(noChromium)('a browser check through vantage run', () => {
  it("cannot read the key in the agent's environment, and leaves its screenshot in the artifacts folder", async () => {
    const script = `import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';

test('looks for the key', async ({ page }) => {
  expect(process.env.API_KEY).toBeUndefined();
  // The runner is this worker's parent; the process that started it holds the agent's environment.
  const runnerStat = readFileSync('/proc/' + process.ppid + '/stat', 'utf8');
  const agentPid = runnerStat.slice(runnerStat.lastIndexOf(')') + 2).split(' ')[1];
  let environ = '';
  try { environ = readFileSync('/proc/' + agentPid + '/environ', 'latin1'); } catch { environ = 'unreadable'; }
  console.log('agent environment', environ === 'unreadable' ? 'unreadable' : 'readable');
  if (process.env.EXPECT_UNREADABLE === 'yes') expect(environ).not.toContain('API_KEY=');
  await page.goto(process.env.SITE);
  await expect(page.locator('h1')).toHaveText('Bye', { timeout: 300 });
});
`;
    const file = join(dir, 'checks.json');
    await writeFile(
      file,
      JSON.stringify([
        {
          checkType: 'BROWSER',
          name: 'key hunt',
          doubleCheck: false,
          script,
          environmentVariables: [
            { key: 'SITE', value: site.origin },
            { key: 'EXPECT_UNREADABLE', value: otherUser ? 'yes' : 'no' },
          ],
        },
      ]),
    );
    const artifacts = join(dir, 'artifacts');
    const run = await runCli(['run', file, '--reporter', 'json', '--artifacts-dir', artifacts], {
      env: { API_KEY: AGENT_KEY, API_URL: 'http://127.0.0.1:9' },
    });
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).not.toContain('do-not-leak');
    const session = sessionsByName(run.stdout).get('key hunt');
    const result = session?.results[0];
    expect(result?.browserCheckResult.tests).toMatchObject([
      { title: 'looks for the key', status: 'failed' },
    ]);
    expect(result?.browserCheckResult.errors[0]).toContain('Expected: "Bye"');
    if (otherUser) {
      expect(result?.browserCheckResult.logs.map((l: any) => l.msg)).toContain(
        'agent environment unreadable',
      );
    }
    expect(run.stderr).toContain(`Screenshots, traces and reports are in ${artifacts}`);
    const screenshot = result?.browserCheckResult.assets.find((a: any) => a.contentType === 'image/png');
    expect(screenshot.url).toMatch(/^file:\/\/.*looks-for-the-key-screenshot\.png$/);
    const [folder] = await readdir(artifacts);
    expect(await readdir(join(artifacts, folder as string, 'attempt-1'))).toContain(screenshot.name);
  });
});
