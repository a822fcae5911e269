import { afterEach, describe, expect, it } from 'vitest';
import { startTestAgent, type TestAgent, waitFor } from '../support/agent.js';
import {
  agentsOf,
  apiCheckAt,
  checkResults,
  completed,
  storedResultsPerRun,
  trigger,
  useServerAndTarget,
} from '../support/runs.js';
import { type CreatedLocation, createApiCheck, createLocation } from '../support/server.js';
import { spooledResults } from '../support/spool-files.js';

const fixture = useServerAndTarget();

const agents: TestAgent[] = [];
afterEach(async () => {
  await fixture.server.start();
  await Promise.all(agents.splice(0).map((a) => a.agent.stop()));
});

let locations = 0;
async function agentOn(
  env: Record<string, string> = {},
  location?: CreatedLocation,
): Promise<{ location: CreatedLocation; agent: TestAgent }> {
  const at = location ?? (await createLocation(fixture.server, `delivery-${++locations}`));
  const agent = await startTestAgent({ url: fixture.server.url, key: at.key }, env);
  agents.push(agent);
  return { location: at, agent };
}

async function checksAt(location: CreatedLocation, paths: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const path of paths) {
    ids.push(
      await createApiCheck(
        fixture.server,
        apiCheckAt(fixture.target.url(path), { privateLocations: [location.slugName] }),
      ),
    );
  }
  return ids;
}

const healthOf = async (agent: TestAgent) => JSON.parse((await agent.health('/health')).text);

describe('agent: results are never lost', () => {
  it('keeps results in the spool while the control plane is down and delivers each once when it is back', async () => {
    const { location, agent } = await agentOn({ JOB_CONCURRENCY: '4' });
    await waitFor(
      'the agent connected',
      async () => (await agentsOf(fixture.server, location.id)).count === 1,
    );
    const paths = ['/outage-0?hold', '/outage-1?hold', '/outage-2?hold', '/outage-3?hold'];
    const checks = await checksAt(location, paths);
    const sessions = await trigger(fixture.server, checks);
    await waitFor('four checks at the target', () => fixture.target.held('/outage-') === 4);

    await fixture.server.stop();
    fixture.target.release('/outage-');
    await waitFor(
      'four results in the spool',
      async () => (await spooledResults(agent.dataDir)).length === 4,
    );
    expect(await healthOf(agent)).toMatchObject({ connected: false, spooled: 4, status: 'disconnected' });
    expect((await agent.health('/-/readiness')).status).toBe(200);

    await new Promise((resolve) => setTimeout(resolve, 500));
    await fixture.server.start();
    for (const id of sessions) expect((await completed(fixture.server, id)).status).toBe('PASSED');
    expect(await storedResultsPerRun(fixture.server, sessions)).toEqual([1, 1, 1, 1]);
    for (const check of checks) expect(await checkResults(fixture.server, check)).toHaveLength(1);
    await waitFor('an empty spool', async () => (await spooledResults(agent.dataDir)).length === 0);
    await waitFor('connected again', async () => (await healthOf(agent)).connected === true);
    expect((await agent.health('/metrics')).text).toMatch(/^vantage_agent_reconnects_total 1$/m);

    // Connected again, it grants its free slots again: a check triggered now runs.
    const [again] = await trigger(fixture.server, await checksAt(location, ['/outage-after']));
    expect((await completed(fixture.server, again as string)).status).toBe('PASSED');
  });

  it('delivers what an earlier run of the agent left in its spool', async () => {
    const { location, agent: first } = await agentOn({ SHUTDOWN_GRACE_SECONDS: '0' });
    await waitFor(
      'the agent connected',
      async () => (await agentsOf(fixture.server, location.id)).count === 1,
    );
    const [sessionId] = await trigger(fixture.server, await checksAt(location, ['/left-behind?hold']));
    await waitFor('the check at the target', () => fixture.target.held('/left-behind') === 1);
    await fixture.server.stop();
    fixture.target.release('/left-behind');
    await waitFor('the result in the spool', async () => (await spooledResults(first.dataDir)).length === 1);
    await first.agent.stop();
    expect(await spooledResults(first.dataDir)).toHaveLength(1);

    await fixture.server.start();
    const { agent: second } = await agentOn({ AGENT_DATA_DIR: first.dataDir }, location);
    expect(second.agent.agentId).toBe(first.agent.agentId);
    const session = await completed(fixture.server, sessionId as string);
    expect(session.status).toBe('PASSED');
    expect(session.results).toHaveLength(1);
    expect(fixture.target.count('/left-behind')).toBe(1);
    expect(second.logs.startedRuns()).toEqual([]);
    await waitFor('an empty spool', async () => (await spooledResults(second.dataDir)).length === 0);
  });
});

describe('agent: refused by the control plane', () => {
  it('logs a revoked key clearly and retries slowly, never in a loop', async () => {
    const { location, agent } = await agentOn();
    await waitFor(
      'the agent connected',
      async () => (await agentsOf(fixture.server, location.id)).count === 1,
    );
    const revoked = await fixture.server.api(
      'DELETE',
      `/v1/private-locations/${location.id}/keys/${location.keyId}`,
    );
    expect(revoked.status).toBe(204);

    await waitFor('the refusal logged', () => agent.logs.text.includes('refused this agent'));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const refusals = agent.logs.entries().filter((e) => String(e.msg).includes('refused this agent'));
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatchObject({ level: 'error' });
    expect(String(refusals[0]?.msg)).toMatch(/REVOKED.*trying again in 1 minute/);
    expect(agent.logs.text).not.toContain('could not connect');
    expect(await healthOf(agent)).toMatchObject({ connected: false, status: 'disconnected' });
    expect((await agentsOf(fixture.server, location.id)).count).toBe(0);
  });

  it('puts a run in flight on a revoked key back in the queue at once: another agent runs it, nothing is lost', async () => {
    const { location, agent: old } = await agentOn();
    const [check] = await checksAt(location, ['/rotate?hold']);
    const [sessionId] = await trigger(fixture.server, [check as string]);
    await waitFor('the run at the target', () => fixture.target.count('/rotate') === 1);
    // Rotate the key: a new one for a new agent, then the old one revoked while its agent runs the check.
    const created = await fixture.server.api('POST', `/v1/private-locations/${location.id}/keys`);
    expect(created.status).toBe(201);
    const { agent: rotated } = await agentOn({}, { ...location, key: created.body.rawKey });
    const revoked = await fixture.server.api(
      'DELETE',
      `/v1/private-locations/${location.id}/keys/${location.keyId}`,
    );
    expect(revoked.status).toBe(204);
    // At once: well before the old lease (3 s here) could run out, and not counted as a lost lease.
    await waitFor('the run again, on the new agent', () => fixture.target.count('/rotate') === 2, 1500);
    const [run] = await fixture.server.server.runs.db.query<{ lease_losses: number }>(
      'SELECT lease_losses FROM runs WHERE session_id = $1',
      [sessionId],
    );
    expect(run?.lease_losses).toBe(0);
    fixture.target.release();
    const session = await completed(fixture.server, sessionId as string);
    expect(session.status).toBe('PASSED');
    expect(session.results).toHaveLength(1);
    expect(rotated.logs.startedRuns()).toHaveLength(1);
    // The old agent's result is refused (401) and dropped without a retry loop.
    await waitFor('the old result dropped', async () => (await spooledResults(old.dataDir)).length === 0);
    expect(old.logs.text).toContain('no longer accepts');
  });

  it('treats HTTP 401 on the upgrade (a wrong key) as fatal too', async () => {
    const location = await createLocation(fixture.server, `delivery-${++locations}`);
    const wrong = `${location.key.slice(0, location.key.lastIndexOf('.'))}.notTheSecretOfThisKey123`;
    const { agent } = await agentOn({}, { ...location, key: wrong });
    await waitFor('the refusal logged', () => agent.logs.text.includes('refused this agent'));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const refusals = agent.logs.entries().filter((e) => String(e.msg).includes('refused this agent'));
    expect(refusals).toHaveLength(1);
    expect(String(refusals[0]?.msg)).toMatch(/HTTP 401.*check API_KEY/);
    expect((await agent.health('/-/readiness')).status).toBe(503);
    expect((await healthOf(agent)).status).toBe('starting');
  });
});
