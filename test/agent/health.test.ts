import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeControlPlane } from '../support/fake-control-plane.js';
import { startHttpServer, type TestServer } from '../support/http-servers.js';
import { startTestAgent, TEST_KEY, type TestAgent } from './support/agent.js';
import { apiCheck } from './support/checks.js';

let target: TestServer;
beforeAll(async () => {
  target = await startHttpServer((req, res) => {
    const ms = Number(new URL(req.url ?? '/', 'http://t').searchParams.get('ms') ?? 0);
    setTimeout(() => res.end('ok'), ms);
  });
});
afterAll(() => target.close());

let fake: FakeControlPlane;
let agent: TestAgent;
afterEach(async () => {
  await agent.agent.stop();
  await fake.stop();
  expect(fake.violations).toEqual([]);
});

describe('agent: health server', () => {
  it('is ready once connected, stays ready through an outage, and reports /health and /-/liveness', async () => {
    fake = await FakeControlPlane.start({ apiKey: TEST_KEY });
    await fake.stop();
    agent = await startTestAgent(fake, { JOB_CONCURRENCY: '3' });
    expect((await agent.health('/-/readiness')).status).toBe(503);
    expect((await agent.health('/-/liveness')).status).toBe(200);

    await fake.restart();
    await fake.waitFor('a connection', () => fake.live[0]);
    await waitForStatus(agent, '/-/readiness', 200);
    const health = JSON.parse((await agent.health('/health')).text);
    expect(Object.keys(health).sort()).toEqual(
      ['connected', 'location', 'queued', 'running', 'spooled', 'status', 'uptimeSeconds', 'version'].sort(),
    );
    expect(health).toMatchObject({
      status: 'ok',
      location: 'berlin-1',
      connected: true,
      running: 0,
      queued: 0,
      spooled: 0,
    });
    expect(health.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(health.uptimeSeconds).toBeGreaterThanOrEqual(0);

    await fake.stop();
    await waitForHealth(agent, (h) => h.connected === false);
    expect((await agent.health('/-/readiness')).status).toBe(200);
    await fake.restart();
  });

  it('serves Prometheus metrics: runs by kind and status, durations, slots, connection, spool, process', async () => {
    fake = await FakeControlPlane.start({ apiKey: TEST_KEY });
    agent = await startTestAgent(fake, { JOB_CONCURRENCY: '3' });
    const run = fake.enqueue(fake.run(apiCheck(target.url('/'))));
    await fake.waitFor('the result', () => fake.results.get(`${run.runId}:1`));
    const metrics = await agent.health('/metrics');
    expect(metrics.status).toBe(200);
    const text = metrics.text;
    for (const line of [
      /^vantage_agent_runs_total\{kind="API",status="PASSED"\} 1$/m,
      /^vantage_agent_run_duration_seconds_count\{kind="API"\} 1$/m,
      /^vantage_agent_run_duration_seconds_bucket\{le="0.5",kind="API"\} \d$/m,
      /^vantage_agent_running_runs\{slot_class="light"\} 0$/m,
      /^vantage_agent_free_slots\{slot_class="light"\} 3$/m,
      /^vantage_agent_free_slots\{slot_class="browser"\} 1$/m,
      /^vantage_agent_connected 1$/m,
      /^vantage_agent_reconnects_total 0$/m,
      /^vantage_agent_spooled_results \d+$/m,
      /^vantage_agent_spool_bytes \d+$/m,
      /^vantage_agent_spool_oldest_age_seconds [\d.]+$/m,
      /^vantage_agent_queued_runs 0$/m,
      /^process_cpu_user_seconds_total /m,
      /^process_resident_memory_bytes /m,
      /^nodejs_eventloop_lag_seconds /m,
    ]) {
      expect(text).toMatch(line);
    }
  });

  it('turns not-ready at the first moment of a shutdown while a running check completes', async () => {
    fake = await FakeControlPlane.start({ apiKey: TEST_KEY });
    agent = await startTestAgent(fake);
    await waitForStatus(agent, '/-/readiness', 200);
    const run = fake.enqueue(fake.run(apiCheck(target.url('/?ms=600'))));
    await waitForHealth(agent, (h) => h.running === 1);
    const stopping = agent.agent.stop();
    expect((await agent.health('/-/readiness')).status).toBe(503);
    expect(JSON.parse((await agent.health('/health')).text).status).toBe('stopping');
    await stopping;
    expect(fake.results.get(`${run.runId}:1`)?.status).toBe('PASSED');
  });
});

async function waitForStatus(agent: TestAgent, path: string, status: number): Promise<void> {
  const end = Date.now() + 10_000;
  while ((await agent.health(path)).status !== status) {
    if (Date.now() > end) throw new Error(`${path} never answered ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function waitForHealth(
  agent: TestAgent,
  ok: (health: Record<string, unknown>) => boolean,
): Promise<void> {
  const end = Date.now() + 10_000;
  while (!ok(JSON.parse((await agent.health('/health')).text))) {
    if (Date.now() > end) throw new Error('health never matched');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
