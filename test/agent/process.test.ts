/**
 * `vantage agent` as a process: its settings, a data folder that cannot keep results, and its second signal.
 * Read-only and full file systems are tmpfs mounts in a mount namespace of the agent's own (unshare -m). (SIGTERM during runs and `kill -9` with a
 * spooled result are tested end to end with the control plane: test/e2e/agent-process.test.ts.)
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/agent.js';
import { AgentProcess, onTmpfs } from '../support/agent-process.js';
import { runCli } from '../support/cli.js';
import { type CountingTarget, startCountingTarget } from '../support/counting-target.js';
import { FAKE_KEY } from '../support/fake-control-plane.js';
import { agentsOf, apiCheckAt, completed, FAST_RUNS, trigger } from '../support/runs.js';
import { createApiCheck, createLocation, startTestServer, type TestServer } from '../support/server.js';

const scratch = () => mkdtemp(join(tmpdir(), 'vantage-agent-data-'));

describe('vantage agent (the process)', () => {
  it('stops at start with one clear line and exit status 2 when a setting is missing or invalid', async () => {
    const badKey = await runCli(['agent'], {
      env: { API_KEY: 'not-a-key-but-secret', API_URL: 'http://127.0.0.1:9', AGENT_DATA_DIR: tmpdir() },
    });
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toBe(
      'API_KEY: must be a private-location key like pl_<account>.<location>.<secret>\n',
    );
    expect(badKey.stdout).toBe('');

    const badConcurrency = await runCli(['agent'], {
      env: { API_KEY: FAKE_KEY, API_URL: 'http://127.0.0.1:9', JOB_CONCURRENCY: 'ten' },
    });
    expect(badConcurrency.code).toBe(2);
    expect(badConcurrency.stderr).toBe('JOB_CONCURRENCY: must be a whole number from 1 to 1000\n');
  });

  it('stops at start with exit status 2 and one line naming AGENT_DATA_DIR when it cannot keep results there', async () => {
    const readOnly = await scratch();
    const env = { API_KEY: FAKE_KEY, API_URL: 'http://127.0.0.1:9', AGENT_DATA_DIR: readOnly };
    const refused = await runCli(['agent'], { env, prefix: onTmpfs(readOnly, 'ro,size=1m') });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^AGENT_DATA_DIR: cannot use .*read-only file system.*\n$/i);

    const file = join(await scratch(), 'not-a-folder');
    await writeFile(file, 'x');
    const notAFolder = await runCli(['agent'], { env: { ...env, AGENT_DATA_DIR: file } });
    expect(notAFolder.code).toBe(2);
    expect(notAFolder.stderr).toMatch(/^AGENT_DATA_DIR: cannot use /);
  });

  describe('with the control plane', () => {
    let server: TestServer;
    let target: CountingTarget;
    let agent: AgentProcess | null = null;
    beforeAll(async () => {
      target = await startCountingTarget();
      server = await startTestServer('pglite', { runs: FAST_RUNS });
    });
    afterAll(async () => {
      agent?.kill('SIGKILL');
      await server?.close();
      await target?.close();
    });

    it('exits at once on a second signal', async () => {
      const location = await createLocation(server, 'signals');
      agent = new AgentProcess({
        API_KEY: location.key,
        API_URL: server.url,
        AGENT_HEALTH_PORT: '0',
        AGENT_DATA_DIR: await mkdtemp(join(tmpdir(), 'vantage-agent-proc-')),
        SHUTDOWN_GRACE_SECONDS: '60',
      });
      await agent.healthPort();
      await waitFor('the agent connected', async () => (await agentsOf(server, location.id)).count === 1);
      const check = await createApiCheck(
        server,
        apiCheckAt(target.url('/long?hold'), { privateLocations: ['signals'] }),
      );
      await trigger(server, [check]);
      await agent.waitForLog('run started', (l) => l.msg === 'run started');
      agent.kill('SIGINT');
      await agent.waitForLog('shutting down', (l) => String(l.msg).startsWith('shutting down'));
      const second = Date.now();
      agent.kill('SIGINT');
      const { code } = await agent.exited;
      expect(Date.now() - second).toBeLessThan(2000);
      expect(code).toBe(130);
      target.release();
    });

    it('turns the agent not ready with the reason in /health, and ready again once results reach the disk', async () => {
      const location = await createLocation(server, 'full-disk');
      const dir = await scratch();
      agent = new AgentProcess(
        { API_KEY: location.key, API_URL: server.url, AGENT_HEALTH_PORT: '0', AGENT_DATA_DIR: dir },
        onTmpfs(dir, 'size=256k'),
      );
      const port = await agent.healthPort();
      const probe = async (path: string) => {
        const response = await fetch(`http://127.0.0.1:${port}${path}`);
        return { status: response.status, text: await response.text() };
      };
      await waitFor('the agent connected', async () => (await agentsOf(server, location.id)).count === 1);
      await waitFor('ready', async () => (await probe('/-/readiness')).status === 200);
      const check = await createApiCheck(
        server,
        apiCheckAt(target.url('/disk'), { privateLocations: ['full-disk'] }),
      );

      // Fill the agent's tmpfs through its own view of the file system.
      const filler = `/proc/${agent.pid}/root${dir}/filler`;
      await writeFile(filler, Buffer.alloc(1024 * 1024)).catch(() => {});
      const [first] = await trigger(server, [check]);
      // The result is still delivered (from memory), but the agent is not ready while it cannot persist results.
      expect((await completed(server, first as string)).status).toBe('PASSED');
      await waitFor('not ready', async () => (await probe('/-/readiness')).status === 503);
      expect(JSON.parse((await probe('/health')).text)).toMatchObject({ spoolError: 'ENOSPC' });

      await rm(filler);
      const [second] = await trigger(server, [check]);
      expect((await completed(server, second as string)).status).toBe('PASSED');
      await waitFor('ready again', async () => (await probe('/-/readiness')).status === 200);
      expect(JSON.parse((await probe('/health')).text)).toMatchObject({ spoolError: null });
    });
  });
});
