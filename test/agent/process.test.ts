import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { FakeControlPlane } from '../support/fake-control-plane.js';
import { startHttpServer, type TestServer } from '../support/http-servers.js';
import { TEST_KEY } from './support/agent.js';
import { apiCheck } from './support/checks.js';
import { AgentProcess } from './support/process.js';

let target: TestServer;
beforeAll(async () => {
  target = await startHttpServer((req, res) => {
    const ms = Number(new URL(req.url ?? '/', 'http://t').searchParams.get('ms') ?? 0);
    setTimeout(() => res.end('ok'), ms);
  });
});
afterAll(() => target.close());

let fake: FakeControlPlane | null = null;
const processes: AgentProcess[] = [];
afterEach(async () => {
  for (const p of processes.splice(0)) p.kill('SIGKILL');
  await fake?.stop();
  expect(fake?.violations ?? []).toEqual([]);
  fake = null;
});

async function agentProcess(env: Record<string, string>): Promise<AgentProcess> {
  const dataDir = env.AGENT_DATA_DIR ?? (await mkdtemp(join(tmpdir(), 'vantage-agent-proc-')));
  const agent = new AgentProcess({
    API_KEY: TEST_KEY,
    API_URL: fake?.url ?? '',
    AGENT_HEALTH_PORT: '0',
    AGENT_DATA_DIR: dataDir,
    ...env,
  });
  processes.push(agent);
  return agent;
}

const readiness = async (port: number) => (await fetch(`http://127.0.0.1:${port}/-/readiness`)).status;

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
      env: { API_KEY: TEST_KEY, API_URL: 'http://127.0.0.1:9', JOB_CONCURRENCY: 'ten' },
    });
    expect(badConcurrency.code).toBe(2);
    expect(badConcurrency.stderr).toBe('JOB_CONCURRENCY: must be a whole number from 1 to 1000\n');
  });

  it('on SIGTERM: not ready at once, no new runs, the running check completes, exit 0', async () => {
    fake = await FakeControlPlane.start({ apiKey: TEST_KEY });
    const agent = await agentProcess({ JOB_CONCURRENCY: '2', SHUTDOWN_GRACE_SECONDS: '20' });
    const port = await agent.healthPort();
    await fake.waitFor('credit', () => fake?.received('credit')[0]);
    const running = fake.enqueue(fake.run(apiCheck(target.url('/?ms=1200'))));
    await agent.waitForLog('run started', (l) => l.msg === 'run started');
    expect(await readiness(port)).toBe(200);

    const signalled = Date.now();
    agent.kill('SIGTERM');
    let notReadyAfter = Number.POSITIVE_INFINITY;
    while (Date.now() - signalled < 2000) {
      if ((await readiness(port)) === 503) {
        notReadyAfter = Date.now() - signalled;
        break;
      }
    }
    // The issue asks for 100 ms; allow for a loaded test machine.
    expect(notReadyAfter).toBeLessThan(500);

    // A run that arrives now (on credit granted earlier) is handed back at once, not started.
    const late = fake.enqueue(fake.run(apiCheck(target.url('/?ms=0&late'))));
    await fake.waitFor('the late run released', () =>
      fake?.received('release').some((m) => m.runIds.includes(late.runId)),
    );
    expect(fake.queue.map((r) => r.runId)).toContain(late.runId);

    const { code } = await agent.exited;
    expect(code).toBe(0);
    expect(fake.results.get(`${running.runId}:1`)?.status).toBe('PASSED');
    expect(fake.results.has(`${late.runId}:1`)).toBe(false);
    expect(agent.lines.some((l) => l.msg === 'agent stopped')).toBe(true);
  });

  it('exits at once on a second signal', async () => {
    fake = await FakeControlPlane.start({ apiKey: TEST_KEY });
    const agent = await agentProcess({ SHUTDOWN_GRACE_SECONDS: '60' });
    await agent.healthPort();
    await fake.waitFor('credit', () => fake?.received('credit')[0]);
    fake.enqueue(fake.run(apiCheck(target.url('/?ms=10000'))));
    await agent.waitForLog('run started', (l) => l.msg === 'run started');
    agent.kill('SIGINT');
    await agent.waitForLog('shutting down', (l) => String(l.msg).startsWith('shutting down'));
    const second = Date.now();
    agent.kill('SIGINT');
    const { code } = await agent.exited;
    expect(Date.now() - second).toBeLessThan(2000);
    expect(code).toBe(130);
  });

  it('after kill -9 mid-run, the next start delivers the results it had spooled', async () => {
    fake = await FakeControlPlane.start({ apiKey: TEST_KEY });
    fake.behaviour.resultStatus = 503;
    const first = await agentProcess({});
    await first.healthPort();
    await fake.waitFor('credit', () => fake?.received('credit')[0]);
    const done = fake.enqueue(fake.run(apiCheck(target.url('/?ms=0&done'))));
    await first.waitForLog('run finished', (l) => l.msg === 'run finished' && l.runId === done.runId);
    fake.enqueue(fake.run(apiCheck(target.url('/?ms=10000&mid-run'))));
    await first.waitForLog('second run started', (l) => l.msg === 'run started' && l.runId !== done.runId);
    first.kill('SIGKILL');
    await first.exited;
    expect(fake.results.size).toBe(0);

    fake.behaviour.resultStatus = null;
    const second = await agentProcess({ AGENT_DATA_DIR: first.env.AGENT_DATA_DIR ?? '' });
    await second.healthPort();
    await fake.waitFor('the spooled result', () => fake?.results.get(`${done.runId}:1`), 15_000);
    expect(fake.results.get(`${done.runId}:1`)?.status).toBe('PASSED');
    expect(fake.resultPosts.filter((p) => p.key === `${done.runId}:1`)).toHaveLength(1);
    second.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  });
});
