import { randomUUID } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptSettingsFromEnv, userProcesses } from '../../../src/runtimes/index.js';
import { runCli, sessionsByName } from '../../support/cli.js';
import { startHttpServer, type TestServer } from '../../support/http-servers.js';
import {
  AGENT_USER,
  canRunNonRootAgent,
  type NonRootAgent,
  nonRootAgent,
} from '../../support/non-root-agent.js';
import { noChromium } from './support.js';

let site: TestServer;
let dir: string;

beforeAll(async () => {
  site = await startHttpServer((_req, res) => res.setHeader('content-type', 'text/html').end('<h1>Hi</h1>'));
  dir = await mkdtemp(join(tmpdir(), 'vbr-'));
  await chmod(dir, 0o755);
});

afterAll(async () => {
  await site.close();
  await rm(dir, { recursive: true, force: true });
});

const AGENT_KEY = 'pl_acct.private-1.do-not-leak-this-key';

const SCRIPT_USERS = { first: 61300, last: 61303 };

/** How `vantage run` is started: as this test's user, or as the container image starts it. */
interface Setup extends Partial<NonRootAgent> {
  /** A user other than the agent's runs the script, so the agent's environment is closed to it. */
  otherUser: boolean;
}

async function nonRootSetup(switchable: boolean): Promise<Setup> {
  const agent = await nonRootAgent(join(dir, `a${Number(switchable)}`), {
    switchable,
    scriptUsers: SCRIPT_USERS,
  });
  return { ...agent, otherUser: switchable };
}

const keyHunt = `import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';

test('looks for the key', async ({ page }) => {
  expect(process.env.API_KEY).toBeUndefined();
  // The runner is this worker's parent; the process that started it holds the agent's environment.
  const runnerStat = readFileSync('/proc/' + process.ppid + '/stat', 'utf8');
  const agentPid = Number(runnerStat.slice(runnerStat.lastIndexOf(')') + 2).split(' ')[1]);
  let environ = '';
  try { environ = readFileSync('/proc/' + agentPid + '/environ', 'latin1'); } catch { environ = 'unreadable'; }
  console.log('agent environment', environ === 'unreadable' ? 'unreadable' : 'readable');
  let signal = 'allowed';
  try { process.kill(agentPid, 0); } catch { signal = 'denied'; }
  console.log('signal to the agent', signal, 'as uid', process.getuid());
  if (process.env.EXPECT_UNREADABLE === 'yes') expect(environ).not.toContain('API_KEY=');
  await page.goto(process.env.SITE);
  await expect(page.locator('h1')).toHaveText('Bye', { timeout: 300 });
});
`;

async function huntForTheKey(setup: Setup) {
  const file = join(dir, `checks-${randomUUID()}.json`);
  await writeFile(
    file,
    JSON.stringify([
      {
        checkType: 'BROWSER',
        name: 'key hunt',
        doubleCheck: false,
        script: keyHunt,
        environmentVariables: [
          { key: 'SITE', value: site.origin },
          { key: 'EXPECT_UNREADABLE', value: setup.otherUser ? 'yes' : 'no' },
        ],
      },
    ]),
  );
  const artifacts = join(dir, `artifacts-${randomUUID()}`);
  await mkdir(artifacts);
  await chmod(artifacts, 0o777);
  const run = await runCli(['run', file, '--reporter', 'json', '--artifacts-dir', artifacts], {
    env: { API_KEY: AGENT_KEY, API_URL: 'http://127.0.0.1:9', ...setup.env },
    prefix: setup.prefix,
  });
  const session = sessionsByName(run.stdout).get('key hunt');
  return {
    run,
    artifacts,
    result: session?.results[0],
    logs: session?.results[0]?.browserCheckResult.logs.map((l: any) => l.msg) as string[],
  };
}

const rootSetups: Array<readonly [string, () => Promise<Setup>]> = [
  [
    'as the agent runs it here',
    async () => ({ otherUser: scriptSettingsFromEnv().scriptUsers.mode !== 'agent' }),
  ],
  ...(canRunNonRootAgent
    ? [
        [
          'as a non-root agent that switches users, as in the container image',
          () => nonRootSetup(true),
        ] as const,
      ]
    : []),
];

describe.skipIf(noChromium).each(rootSetups)('a browser check through vantage run, %s,', (_, setupOf) => {
  it("cannot read the key in the agent's environment, and leaves its screenshot in the artifacts folder", async () => {
    const setup = await setupOf();
    const { run, artifacts, result, logs } = await huntForTheKey(setup);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout + run.stderr).not.toContain('do-not-leak');
    expect(run.stderr).not.toContain('warning');
    expect(result?.browserCheckResult.tests).toMatchObject([
      { title: 'looks for the key', status: 'failed' },
    ]);
    expect(result?.browserCheckResult.errors[0]).toContain('Expected: "Bye"');
    if (setup.otherUser) {
      expect(logs).toContain('agent environment unreadable');
      expect(logs.find((l) => l.startsWith('signal to the agent'))).toMatch(/^signal to the agent denied/);
    }
    if (setup.workDir) {
      expect(logs).toContain(`signal to the agent denied as uid ${SCRIPT_USERS.first}`);
      // The run's folder is gone, and so is every process of its user.
      expect(await readdir(setup.workDir)).toEqual([]);
      expect(await userProcesses(SCRIPT_USERS.first)).toEqual([]);
    }
    expect(run.stderr).toContain(`Screenshots, traces and reports are in ${artifacts}`);
    const screenshot = result?.browserCheckResult.assets.find((a: any) => a.contentType === 'image/png');
    expect(screenshot.url).toMatch(/^file:\/\/.*looks-for-the-key-screenshot\.png$/);
    const [folder] = await readdir(artifacts);
    expect(await readdir(join(artifacts, folder as string, 'attempt-1'))).toContain(screenshot.name);
  });
});

describe.runIf(canRunNonRootAgent && !noChromium)(
  'a non-root agent whose switch program cannot switch',
  () => {
    it('says so, naming what to grant, and runs scripts as its own user', async () => {
      const { run, logs, result } = await huntForTheKey(await nonRootSetup(false));
      expect(run.stderr).toMatch(
        /warning: scripts run as the agent's own user: .*SETUID and SETGID capabilities/,
      );
      expect(logs, JSON.stringify(result?.browserCheckResult.errors)).toContain(
        `signal to the agent allowed as uid ${AGENT_USER}`,
      );
    });
  },
);
