/**
 * End to end with the agent as the container image runs it: a real `vantage agent` process as user 10001, no
 * capability but SETUID and SETGID, with its switch program (test/support/non-root-agent.ts). Its scripts, a
 * multi-step check, an API check's setup script and a check suite, each run as a user of their own: they pass,
 * cannot read the agent's environment nor signal it, and leave neither a process nor a folder behind.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userProcesses } from '../../src/runtimes/index.js';
import { noChromium } from '../executors/browser/support.js';
import { bundledSuiteCheck, noEngine, packSuite, startShop } from '../executors/playwright/suite-fixture.js';
import { uploadBundle } from '../server/bundles/support.js';
import { waitFor } from '../support/agent.js';
import { AgentProcess } from '../support/agent-process.js';
import type { TestServer as HttpServer } from '../support/http-servers.js';
import { AGENT_USER, canRunNonRootAgent, nonRootAgent } from '../support/non-root-agent.js';
import { agentsOf, checkResults, completed, FAST_RUNS, trigger } from '../support/runs.js';
import { type CreatedLocation, createLocation, startTestServer, type TestServer } from '../support/server.js';

const SCRIPT_USERS = { first: 61400, last: 61403 };
const uids = Array.from({ length: 4 }, (_, i) => SCRIPT_USERS.first + i);

/** What every script here does first: looks for the agent's key in the environment of the process that started it. */
const HUNT = `
const { readFileSync } = require('node:fs');
function huntForTheKey(agentPid) {
  let environ;
  try { environ = readFileSync('/proc/' + agentPid + '/environ', 'latin1'); } catch { environ = null; }
  let signal = 'allowed';
  try { process.kill(agentPid, 0); } catch { signal = 'denied'; }
  console.log('uid ' + process.getuid() + ': environment ' + (environ === null ? 'unreadable' : environ.includes('API_KEY=') ? 'has the key' : 'readable') + ', signal ' + signal);
}`;

/** The Playwright runner (the test worker's parent) was started by the agent. */
const MULTI_STEP_SCRIPT = `import { test, expect } from '@playwright/test';
${HUNT.replace("const { readFileSync } = require('node:fs');", "import { readFileSync } from 'node:fs';")}
test('the shop answers', async ({ request }) => {
  const runner = readFileSync('/proc/' + process.ppid + '/stat', 'utf8');
  huntForTheKey(Number(runner.slice(runner.lastIndexOf(')') + 2).split(' ')[1]));
  expect(process.env.API_KEY).toBeUndefined();
  const response = await request.get(process.env.SHOP_URL);
  expect(response.status()).toBe(200);
});
`;

/** A setup script runs in a process the agent started. */
const SETUP_SCRIPT = `${HUNT}
huntForTheKey(process.ppid);
request.headers['X-Setup'] = 'ran';`;

/** A run folder as a dead agent leaves it, `hoursAgo` old, with a folder only `uid` may enter. */
async function leftBehindRunFolder(workDir: string, uid: number, hoursAgo = 7): Promise<string> {
  const root = join(workDir, 'dead0000-abcdef');
  const make = (path: string, owner: number, mode: string) =>
    promisify(execFile)('install', ['-d', '-o', String(owner), '-g', String(owner), '-m', mode, path]);
  await make(workDir, AGENT_USER, '0711');
  await make(root, AGENT_USER, '0777');
  await make(join(root, 'work'), AGENT_USER, '0777');
  await make(join(root, 'work', 'test-results'), uid, '0700');
  await writeFile(join(root, 'work', 'test-results', 'trace.zip'), 'left behind');
  await chown(join(root, 'work', 'test-results', 'trace.zip'), uid, uid);
  const then = new Date(Date.now() - hoursAgo * 3600_000);
  await utimes(root, then, then);
  return root;
}

const logsOf = (result: any): string[] => {
  const detail =
    result.multiStepCheckResult ?? result.playwrightCheckResult ?? result.browserCheckResult ?? null;
  return (detail?.logs ?? result.apiCheckResult?.jobLog ?? []).map((l: { msg: string }) => l.msg);
};

describe.skipIf(!canRunNonRootAgent || noChromium || noEngine)(
  'a non-root agent, as in the container image',
  () => {
    let server: TestServer;
    let shop: HttpServer;
    let dir: string;
    const agents: AgentProcess[] = [];

    beforeAll(async () => {
      shop = await startShop();
      dir = await mkdtemp(join(tmpdir(), 'vnr-'));
      await chmod(dir, 0o755);
      server = await startTestServer('pglite', { runs: FAST_RUNS });
    });
    afterAll(async () => {
      for (const agent of agents) agent.kill('SIGKILL');
      await server?.close();
      await shop?.close();
      await rm(dir, { recursive: true, force: true });
    });

    async function startAgent(
      location: CreatedLocation,
      switchable: boolean,
      env: Record<string, string> = {},
      scriptUsers = SCRIPT_USERS,
    ) {
      const setup = await nonRootAgent(join(dir, location.slugName.slice(0, 2)), { switchable, scriptUsers });
      const agent = new AgentProcess(
        {
          API_KEY: location.key,
          API_URL: server.url,
          AGENT_HEALTH_PORT: '0',
          AGENT_DATA_DIR: join(setup.workDir, '..', 'data'),
          JOB_CONCURRENCY: '2',
          BROWSER_CONCURRENCY: '2',
          ...setup.env,
          ...env,
        },
        setup.prefix,
      );
      agents.push(agent);
      await agent.healthPort();
      await waitFor('the agent connected', async () => (await agentsOf(server, location.id)).count === 1);
      return { agent, setup };
    }

    it('runs every kind of script as a user of its own, which cannot reach the agent', {
      timeout: 240_000,
    }, async () => {
      const location = await createLocation(server, 'image');
      const { agent, setup } = await startAgent(location, true);
      expect(await agent.waitForLog('agent started', (l) => l.msg === 'agent started')).toMatchObject({
        scriptUsers: `a uid per run, ${SCRIPT_USERS.first}-${SCRIPT_USERS.last}`,
      });
      // A run folder an earlier agent left when it died, 7 hours ago: its script's user made a private folder.
      const stale = await leftBehindRunFolder(setup.workDir, SCRIPT_USERS.first + 1);

      const archive = join(dir, 'suite.tar.gz');
      await packSuite(archive);
      const bundle = await uploadBundle(server, await readFile(archive));
      // The install log is written by the scripts' users.
      const shared = join(dir, 'shared');
      await promisify(execFile)('install', ['-d', '-m', '0777', shared]);
      const installLog = join(shared, 'installs.log');
      const created = await Promise.all([
        server.api('POST', '/v1/checks/multistep', {
          name: 'Multi-step key hunt',
          activated: false,
          privateLocations: ['image'],
          script: MULTI_STEP_SCRIPT,
          environmentVariables: [{ key: 'SHOP_URL', value: shop.origin }],
        }),
        server.api('POST', '/v1/checks', {
          checkType: 'API',
          name: 'Setup-script key hunt',
          activated: false,
          privateLocations: ['image'],
          request: { url: shop.origin },
          setupScript: { content: SETUP_SCRIPT },
        }),
        server.api(
          'POST',
          '/v1/checks/playwright',
          bundledSuiteCheck({ bundleId: bundle.body.id, location: 'image', tag: '@smoke', shop, installLog }),
        ),
      ]);
      for (const check of created) expect(check.status, JSON.stringify(check.body)).toBe(201);
      const [multiStep, api, suite] = created.map((c) => c.body.id as string) as [string, string, string];

      const sessions = await trigger(server, [multiStep, api, suite]);
      for (const id of sessions)
        expect(await completed(server, id, 200_000)).toMatchObject({ status: 'PASSED' });
      // The suite again: its dependencies come from the cache, into the run of another user.
      const [again] = await trigger(server, [suite]);
      expect(await completed(server, again ?? '', 200_000)).toMatchObject({ status: 'PASSED' });
      expect(await readFile(installLog, 'utf8')).toBe('installed\n');

      const hunts = [];
      for (const id of [multiStep, api]) {
        const [result] = await checkResults(server, id);
        hunts.push(...logsOf(result).filter((l) => l.startsWith('uid ')));
      }
      expect(hunts).toHaveLength(2);
      for (const line of hunts) {
        expect(line).toMatch(/^uid 614\d\d: environment unreadable, signal denied$/);
        expect(uids).toContain(Number(line.split(' ')[1]?.replace(':', '')));
      }
      const [second] = await checkResults(server, suite);
      expect(logsOf(second)).toContainEqual(expect.stringMatching(/^dependencies restored from the cache/));

      expect(agent.stdout).not.toContain(location.key);
      expect(agent.lines.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([]);
      // The stale folder went with the first run's sweep, although the agent could not remove it itself.
      expect(existsSync(stale)).toBe(false);
      expect(await readdir(setup.workDir)).toEqual([]);
      for (const uid of uids) expect(await userProcesses(uid)).toEqual([]);
    });

    it('without SETUID and SETGID, warns at start, naming what to grant', async () => {
      const location = await createLocation(server, 'no-caps');
      const { agent } = await startAgent(location, false);
      const warning = await agent.waitForLog('the warning', (l) =>
        String(l.msg).startsWith("scripts run as the agent's own user"),
      );
      expect(warning.level).toBe('warn');
      expect(warning.msg).toMatch(/SETUID and\s+SETGID capabilities with privilege escalation allowed/);
      expect(String(warning.msg)).not.toContain(location.key);
    });
    it('kills a browser script that hangs at its limit, with every process of its user: TIMED_OUT', {
      timeout: 120_000,
    }, async () => {
      const location = await createLocation(server, 'hang');
      // 240 s × 0.1: the BROWSER limit is 24 s here, room enough for a page to open on a loaded 2-core machine
      // (a trivial browser run takes 5.5–8.4 s there).
      const { setup } = await startAgent(location, true, { AGENT_RUN_LIMIT_SCALE: '0.1' });
      const created = await server.api('POST', '/v1/checks/browser', {
        name: 'Hangs',
        activated: false,
        doubleCheck: false,
        privateLocations: ['hang'],
        script: `import { test } from '@playwright/test';
test('waits forever', async ({ page }) => {
  await page.goto(process.env.SHOP_URL);
  console.log('page open');
  await new Promise(() => {});
});`,
        environmentVariables: [{ key: 'SHOP_URL', value: shop.origin }],
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const [session] = await trigger(server, [created.body.id]);
      expect(await completed(server, session ?? '', 90_000)).toMatchObject({ status: 'TIMED_OUT' });
      const [result] = await checkResults(server, created.body.id);
      expect(logsOf(result)).toContain('page open');
      await waitFor('the run folder removed', async () => (await readdir(setup.workDir)).length === 0);
      for (const uid of uids) expect(await userProcesses(uid)).toEqual([]);
    });
    it('stops a running check suite cancelled through the API, leaving no process of its user', {
      timeout: 120_000,
    }, async () => {
      const location = await createLocation(server, 'cancel');
      // A range of its own: every process of these uids belongs to this agent's runs.
      const range = { first: 61410, last: 61411 };
      const { agent, setup } = await startAgent(location, true, {}, range);
      const short = await agent.waitForLog('the warning', (l) =>
        String(l.msg).includes('VANTAGE_SCRIPT_USERS'),
      );
      expect(short.msg).toBe(
        'VANTAGE_SCRIPT_USERS holds 2 uids for 4 run slots: scripts beyond 2 at once wait for a uid',
      );
      const archive = join(dir, 'hang.tar.gz');
      await packSuite(archive);
      const bundle = await uploadBundle(server, await readFile(archive));
      const shared = join(dir, 'shared-cancel');
      await promisify(execFile)('install', ['-d', '-m', '0777', shared]);
      const created = await server.api(
        'POST',
        '/v1/checks/playwright',
        bundledSuiteCheck({
          bundleId: bundle.body.id,
          location: 'cancel',
          tag: '@hang',
          shop,
          installLog: join(shared, 'installs.log'),
        }),
      );
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const [session] = await trigger(server, [created.body.id]);
      // Cancelled once the suite's browser is up, as its user.
      const browserUp = async () => {
        for (const pid of await userProcesses(range.first)) {
          const comm = await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '');
          if (comm.startsWith('chrom')) return true;
        }
        return false;
      };
      await waitFor("the suite's browser running", browserUp, 60_000);
      const cancelled = await server.api('POST', `/v1/check-sessions/${session}/cancel`);
      expect(cancelled.status).toBe(200);
      expect(await completed(server, session ?? '', 60_000)).toMatchObject({ status: 'CANCELLED' });
      await waitFor('no process of the run', async () => (await userProcesses(range.first)).length === 0);
      await waitFor('the run folder removed', async () => (await readdir(setup.workDir)).length === 0);
    });
  },
);
