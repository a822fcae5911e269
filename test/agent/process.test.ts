/**
 * `vantage agent` as a process: its settings and its second signal. (SIGTERM during runs and `kill -9` with a
 * spooled result are tested end to end with the control plane: test/e2e/agent-process.test.ts.)
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/agent.js';
import { AgentProcess } from '../support/agent-process.js';
import { runCli } from '../support/cli.js';
import { type CountingTarget, startCountingTarget } from '../support/counting-target.js';
import { FAKE_KEY } from '../support/fake-control-plane.js';
import { agentsOf, apiCheckAt, FAST_RUNS, trigger } from '../support/runs.js';
import { createApiCheck, createLocation, startTestServer, type TestServer } from '../support/server.js';

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
  });
});
