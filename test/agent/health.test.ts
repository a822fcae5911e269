import { afterEach, describe, expect, it } from 'vitest';
import { startTestAgent, type TestAgent, waitFor } from '../support/agent.js';
import { apiCheckAt, completed, trigger, useServerAndTarget } from '../support/runs.js';
import { type CreatedLocation, createApiCheck, createLocation } from '../support/server.js';

const fixture = useServerAndTarget();

let agent: TestAgent | null = null;
afterEach(async () => {
  await fixture.server.start();
  await agent?.agent.stop();
  agent = null;
});

let locations = 0;
async function agentOn(
  env: Record<string, string> = {},
  options: { serverDown?: boolean } = {},
): Promise<{ location: CreatedLocation; agent: TestAgent }> {
  const location = await createLocation(fixture.server, `health-${++locations}`);
  if (options.serverDown) await fixture.server.stop();
  agent = await startTestAgent({ url: fixture.server.url, key: location.key }, env);
  return { location, agent };
}

async function triggerAt(location: CreatedLocation, path: string): Promise<string> {
  const check = await createApiCheck(
    fixture.server,
    apiCheckAt(fixture.target.url(path), { privateLocations: [location.slugName] }),
  );
  return (await trigger(fixture.server, [check]))[0] as string;
}

const healthOf = async (agent: TestAgent) => JSON.parse((await agent.health('/health')).text);

describe('agent: health server', () => {
  it('is ready once connected, stays ready through an outage, and reports /health and /-/liveness', async () => {
    const { agent } = await agentOn({ JOB_CONCURRENCY: '3' }, { serverDown: true });
    expect((await agent.health('/-/readiness')).status).toBe(503);
    expect((await agent.health('/-/liveness')).status).toBe(200);
    expect((await healthOf(agent)).status).toBe('starting');

    await fixture.server.start();
    await waitFor('ready', async () => (await agent.health('/-/readiness')).status === 200);
    const health = await healthOf(agent);
    expect(Object.keys(health).sort()).toEqual(
      [
        'connected',
        'location',
        'queued',
        'running',
        'spoolError',
        'spooled',
        'status',
        'threads',
        'uptimeSeconds',
        'version',
      ].sort(),
    );
    expect(health).toMatchObject({
      status: 'ok',
      location: 'health-1',
      connected: true,
      running: 0,
      queued: 0,
      threads: 0,
      spooled: 0,
    });
    expect(health.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(health.uptimeSeconds).toBeGreaterThanOrEqual(0);

    await fixture.server.stop();
    await waitFor('disconnected', async () => (await healthOf(agent)).connected === false);
    expect((await healthOf(agent)).status).toBe('disconnected');
    expect((await agent.health('/-/readiness')).status).toBe(200);
  });

  it('serves Prometheus metrics: runs by kind and status, durations, slots, connection, spool, process', async () => {
    const { location, agent } = await agentOn({ JOB_CONCURRENCY: '3' });
    expect((await completed(fixture.server, await triggerAt(location, '/metrics-run'))).status).toBe(
      'PASSED',
    );
    await waitFor('the result delivered', async () =>
      /^vantage_agent_results_delivered_total 1$/m.test((await agent.health('/metrics')).text),
    );
    const metrics = await agent.health('/metrics');
    expect(metrics.status).toBe(200);
    for (const line of [
      /^vantage_agent_runs_total\{kind="API",status="PASSED"\} 1$/m,
      /^vantage_agent_run_duration_seconds_count\{kind="API"\} 1$/m,
      /^vantage_agent_run_duration_seconds_bucket\{le="0.5",kind="API"\} \d$/m,
      /^vantage_agent_running_runs\{slot_class="light"\} 0$/m,
      /^vantage_agent_free_slots\{slot_class="light"\} 3$/m,
      /^vantage_agent_free_slots\{slot_class="browser"\} 1$/m,
      /^vantage_agent_connected 1$/m,
      /^vantage_agent_reconnects_total 0$/m,
      /^vantage_agent_spooled_results 0$/m,
      /^vantage_agent_spool_bytes 0$/m,
      /^vantage_agent_spool_oldest_age_seconds 0$/m,
      /^vantage_agent_spool_dropped_results_total 0$/m,
      /^vantage_agent_queued_runs 0$/m,
      /^process_cpu_user_seconds_total /m,
      /^process_resident_memory_bytes /m,
      /^nodejs_eventloop_lag_seconds /m,
    ]) {
      expect(metrics.text).toMatch(line);
    }
  });

  it('turns not-ready at the first moment of a shutdown while a running check completes', async () => {
    const { location, agent } = await agentOn();
    await waitFor('ready', async () => (await agent.health('/-/readiness')).status === 200);
    const sessionId = await triggerAt(location, '/shutdown-run?ms=600');
    await waitFor('the check running', async () => (await healthOf(agent)).running === 1);
    const stopping = agent.agent.stop();
    expect((await agent.health('/-/readiness')).status).toBe(503);
    expect((await healthOf(agent)).status).toBe('stopping');
    await stopping;
    const session = await completed(fixture.server, sessionId);
    expect(session.status).toBe('PASSED');
    expect(session.results).toHaveLength(1);
  });
});
