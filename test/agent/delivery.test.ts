import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLOSE_CODES } from '../../src/protocol/index.js';
import { FakeControlPlane } from '../support/fake-control-plane.js';
import { startHttpServer, type TestServer } from '../support/http-servers.js';
import { startTestAgent, TEST_KEY, type TestAgent } from './support/agent.js';
import { apiCheck } from './support/checks.js';

let target: TestServer;
/** Requests to /gate wait here until the test opens the gate. */
let gated: (() => void)[] = [];
beforeAll(async () => {
  target = await startHttpServer((req, res) => {
    if (req.url === '/gate') {
      gated.push(() => res.end('ok'));
      return;
    }
    res.end('ok');
  });
});
const openGate = () => {
  for (const answer of gated.splice(0)) answer();
};
afterAll(() => target.close());

let fake: FakeControlPlane;
let running: TestAgent[] = [];
afterEach(async () => {
  await Promise.all(running.map((a) => a.agent.stop()));
  running = [];
  await fake.stop();
  expect(fake.violations).toEqual([]);
});

async function agentOn(env: Record<string, string> = {}): Promise<TestAgent> {
  const agent = await startTestAgent(fake, env);
  running.push(agent);
  return agent;
}

/** Results written whole to the spool (not the temporary files of writes under way). */
const spoolFiles = async (dataDir: string) =>
  (await readdir(join(dataDir, 'spool'))).filter((f) => f.endsWith('.result.json') && !f.startsWith('.'));

function postsPerKey(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const post of fake.resultPosts) counts.set(post.key, (counts.get(post.key) ?? 0) + 1);
  return counts;
}

describe('agent: results are never lost', () => {
  it('keeps results in the spool while the control plane is down and delivers each once when it returns', async () => {
    fake = await FakeControlPlane.start({ apiKey: TEST_KEY });
    const agent = await agentOn({ JOB_CONCURRENCY: '4' });
    await fake.waitFor('credit', () => fake.received('credit')[0]);
    gated = [];
    const runs = Array.from({ length: 4 }, () => fake.enqueue(fake.run(apiCheck(target.url('/gate')))));
    await fake.waitFor('four checks at the target', () => gated.length === 4);
    await fake.stop();
    openGate();

    const spooled = await waitAsync(async () => (await spoolFiles(agent.dataDir)).length === 4);
    expect(spooled).toBe(true);
    const health = JSON.parse((await agent.health('/health')).text);
    expect(health).toMatchObject({ connected: false, spooled: 4, status: 'disconnected' });

    await new Promise((resolve) => setTimeout(resolve, 500));
    await fake.restart();
    await fake.waitFor('every result', () => runs.every((r) => fake.results.has(`${r.runId}:1`)));
    expect([...postsPerKey().values()]).toEqual([1, 1, 1, 1]);
    expect(await waitAsync(async () => (await spoolFiles(agent.dataDir)).length === 0)).toBe(true);
    // After the reconnect the agent said which runs it still held results for, then granted its slots again.
    await fake.waitFor('a second connection', () => fake.live.length === 1 && fake.connections.length >= 2);
    const metrics = (await agent.health('/metrics')).text;
    expect(metrics).toMatch(/^vantage_agent_reconnects_total 1$/m);
  });

  it('sends a result again while the control plane answers 503, and drops one it refuses for good', async () => {
    fake = await FakeControlPlane.start({ apiKey: TEST_KEY });
    const agent = await agentOn();
    fake.behaviour.resultStatus = 503;
    const retried = fake.enqueue(fake.run(apiCheck(target.url('/'))));
    await waitAsync(async () => (await spoolFiles(agent.dataDir)).length === 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    fake.behaviour.resultStatus = null;
    await fake.waitFor('the retried result', () => fake.results.get(`${retried.runId}:1`));

    fake.behaviour.resultStatus = 410;
    fake.enqueue(fake.run(apiCheck(target.url('/'))));
    await fake.waitFor('the refusal logged', () => agent.logs.text.includes('refused a result for good'));
    expect(await waitAsync(async () => (await spoolFiles(agent.dataDir)).length === 0)).toBe(true);
    fake.behaviour.resultStatus = null;
  });

  it('delivers what an earlier run of the agent left in its spool', async () => {
    fake = await FakeControlPlane.start({ apiKey: TEST_KEY });
    fake.behaviour.resultStatus = 503;
    const first = await startTestAgent(fake, { SHUTDOWN_GRACE_SECONDS: '0' });
    const run = fake.enqueue(fake.run(apiCheck(target.url('/'))));
    await waitAsync(async () => (await spoolFiles(first.dataDir)).length === 1);
    await first.agent.stop();
    expect(await spoolFiles(first.dataDir)).toHaveLength(1);
    expect(fake.results.size).toBe(0);

    fake.behaviour.resultStatus = null;
    const second = await agentOn({ AGENT_DATA_DIR: first.dataDir });
    expect(second.agent.agentId).toBe(first.agent.agentId);
    await fake.waitFor('the spooled result', () => fake.results.get(`${run.runId}:1`));
    // The second agent named the run in its hello, so its lease carried on while the result was pending.
    expect(fake.connections.at(-1)?.hello?.running).toEqual([run.runId]);
  });

  it('reconnects after the connection drops and grants its free slots again', async () => {
    fake = await FakeControlPlane.start({ apiKey: TEST_KEY });
    await agentOn({ JOB_CONCURRENCY: '2' });
    await fake.waitFor('credit', () => fake.received('credit')[0]);
    fake.dropConnections();
    await fake.waitFor('a new connection', () => fake.live.length === 1 && fake.connections.length === 2);
    await fake.waitFor('new credit', () => fake.connections[1]?.granted.light === 2);
    const run = fake.enqueue(fake.run(apiCheck(target.url('/'))));
    await fake.waitFor('the result', () => fake.results.get(`${run.runId}:1`));
  });
});

describe('agent: refused by the control plane', () => {
  it('logs a revoked key clearly and retries slowly, never in a loop', async () => {
    fake = await FakeControlPlane.start({ apiKey: TEST_KEY });
    fake.behaviour.refuse = { code: 'REVOKED', closeCode: CLOSE_CODES.revoked };
    const agent = await agentOn();
    await fake.waitFor('the refusal logged', () => agent.logs.text.includes('refused this agent'));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(fake.upgrades).toBe(1);
    const line = agent.logs.entries().find((e) => String(e.msg).includes('refused this agent'));
    expect(line).toMatchObject({ level: 'error' });
    expect(String(line?.msg)).toMatch(/REVOKED.*trying again in 1 minute/);
    expect((await agent.health('/-/readiness')).status).toBe(503);
    expect(JSON.parse((await agent.health('/health')).text).status).toBe('starting');
  });

  it('treats HTTP 401 on the upgrade as fatal too', async () => {
    fake = await FakeControlPlane.start({ apiKey: TEST_KEY });
    fake.behaviour.upgradeStatus = 401;
    const agent = await agentOn();
    await fake.waitFor('the refusal logged', () => agent.logs.text.includes('refused this agent'));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(fake.upgrades).toBe(1);
    expect(agent.logs.text).toMatch(/HTTP 401.*check API_KEY/);
  });
});

async function waitAsync(probe: () => Promise<boolean>, timeoutMs = 10_000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await probe()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}
