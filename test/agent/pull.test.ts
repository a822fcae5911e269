import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { CHECK_TYPES } from '../../src/checks/index.js';
import { version } from '../../src/version.js';
import { startTestAgent, type TestAgent, waitFor } from '../support/agent.js';
import { type TestServer as HttpServer, startHttpServer } from '../support/http-servers.js';
import {
  agentsOf,
  apiCheckAt,
  completed,
  FAST_RUNS,
  runIdsOf,
  storedResultsPerRun,
  trigger,
  useServerAndTarget,
} from '../support/runs.js';
import { type CreatedLocation, createApiCheck, createLocation } from '../support/server.js';

// Leases of one second: only heartbeats keep a longer run with its agent.
const fixture = useServerAndTarget({ ...FAST_RUNS, leaseTtlMs: 1000, heartbeatIntervalMs: 200 });

let agent: TestAgent | null = null;
afterEach(async () => {
  await agent?.agent.stop();
  agent = null;
});

let locations = 0;
/** A fresh location of the real control plane with one agent of it. */
async function agentOn(
  env: Record<string, string> = {},
): Promise<{ location: CreatedLocation; agent: TestAgent }> {
  const location = await createLocation(fixture.server, `pull-${++locations}`);
  agent = await startTestAgent({ url: fixture.server.url, key: location.key }, env);
  await waitFor('the agent connected', async () => (await agentsOf(fixture.server, location.id)).count === 1);
  return { location, agent };
}

async function checksAt(location: CreatedLocation, urls: string[], fields: Record<string, unknown> = {}) {
  const ids: string[] = [];
  for (const url of urls) {
    ids.push(
      await createApiCheck(
        fixture.server,
        apiCheckAt(url, { privateLocations: [location.slugName], ...fields }),
      ),
    );
  }
  return ids;
}

describe('agent: handshake and pulling, with the control plane', () => {
  it('says hello with its identity, slots and what it can run (and why not)', async () => {
    const { location, agent } = await agentOn({ JOB_CONCURRENCY: '3', BROWSER_CONCURRENCY: '0' });
    expect(await agentsOf(fixture.server, location.id)).toMatchObject({
      count: 1,
      connected: true,
      versions: [version],
    });
    const [row] = await fixture.server.server.context.db.query<{
      agent_version: string;
      hostname: string;
      platform: string;
      node_version: string;
      capabilities: {
        capabilities: Record<string, { available: boolean; reason: string | null }>;
        slots: unknown;
        runtimes: unknown;
      };
    }>('SELECT * FROM agents WHERE private_location_id = $1 AND agent_id = $2', [
      location.id,
      agent.agent.agentId,
    ]);
    expect(row).toMatchObject({
      agent_version: version,
      hostname: hostname(),
      platform: `${process.platform}-${process.arch}`,
      node_version: process.version,
    });
    const { capabilities, slots, runtimes } = row?.capabilities ?? {
      capabilities: {},
      slots: null,
      runtimes: null,
    };
    expect(slots).toEqual({ light: 3, browser: 0 });
    expect(Array.isArray(runtimes)).toBe(true);
    expect(Object.keys(capabilities).sort()).toEqual([...CHECK_TYPES].sort());
    for (const kind of ['URL', 'API', 'TCP', 'DNS'] as const) {
      expect(capabilities[kind]).toEqual({ available: true, reason: null });
    }
    // Every kind it cannot run says why (script kinds depend on the runtimes and browser installed here).
    for (const capability of Object.values(capabilities)) {
      if (capability.available) expect(capability.reason).toBeNull();
      else expect(capability.reason).toMatch(/\w+/);
    }
    expect(capabilities.AGENTIC?.available).toBe(false);
    expect(capabilities.HEARTBEAT?.reason).toMatch(/control plane/);
    const icmp = capabilities.ICMP;
    expect(icmp?.available === true || /NET_RAW|raw socket/.test(icmp?.reason ?? '')).toBe(true);
  });

  it('reports each attempt the control plane hands it: a failed first attempt, then the retry', async () => {
    let calls = 0;
    const flaky: HttpServer = await startHttpServer((_req, res) => {
      calls++;
      res.writeHead(calls === 1 ? 503 : 200).end();
    });
    try {
      const { location } = await agentOn();
      // doubleCheck: one immediate retry after a failed attempt.
      const [checkId] = await checksAt(location, [flaky.url('/flaky')], { doubleCheck: true });
      const [sessionId] = await trigger(fixture.server, [checkId as string]);
      const session = await completed(fixture.server, sessionId as string);
      expect(session.status).toBe('PASSED');
      expect(
        session.results.map((r: { resultType: string; attempts: number; hasFailures: boolean }) => [
          r.resultType,
          r.attempts,
          r.hasFailures,
        ]),
      ).toEqual([
        ['ATTEMPT', 1, true],
        ['FINAL', 2, false],
      ]);
      expect(session.results[1]).toMatchObject({ checkId, runLocation: location.slugName, checkType: 'API' });
      expect(session.results[1].apiCheckResult.response.status).toBe(200);
      expect(calls).toBe(2);
    } finally {
      await flaky.close();
    }
  });

  it('gives a script the run id of the control plane as CHECK_RUN_ID, the id the agent logs', async () => {
    const { location, agent } = await agentOn();
    // A target of its own: the shared one counts the most runs in flight at once for the slot test.
    const own = await startHttpServer((_req, res) => res.end('ok'));
    const [checkId] = await checksAt(location, [own.url('/run-id')], {
      localSetupScript: "console.log('run id ' + process.env.CHECK_RUN_ID);",
    });
    const [sessionId] = await trigger(fixture.server, [checkId as string]);
    const session = await completed(fixture.server, sessionId as string);
    expect(session.status).toBe('PASSED');
    const [runId] = await runIdsOf(fixture.server, [sessionId as string]);
    expect(agent.logs.startedRuns()).toEqual([runId]);
    const log = session.results[0].apiCheckResult.jobLog.map((l: { msg: string }) => l.msg);
    expect(log).toContain(`run id ${runId}`);
    await own.close();
  });

  it('never holds more runs than its slots, and each run is executed once', async () => {
    const { location, agent } = await agentOn({ JOB_CONCURRENCY: '2' });
    const before = fixture.target.maxInFlight();
    expect(before).toBe(0);
    const paths = Array.from({ length: 7 }, (_, i) => `/slots-${i}`);
    const sessions = await trigger(
      fixture.server,
      await checksAt(
        location,
        paths.map((p) => fixture.target.url(`${p}?ms=150`)),
      ),
    );
    for (const id of sessions) expect((await completed(fixture.server, id)).status).toBe('PASSED');
    expect(fixture.target.maxInFlight()).toBe(2);
    for (const path of paths) expect(fixture.target.count(`${path}?`)).toBe(1);
    expect(agent.logs.startedRuns().sort()).toEqual(await runIdsOf(fixture.server, sessions));
    expect(agent.logs.text).not.toContain('without credit');
    expect(await storedResultsPerRun(fixture.server, sessions)).toEqual(sessions.map(() => 1));
  });

  it('keeps the lease of a long run with heartbeats: it is not given to anyone again', async () => {
    const { location } = await agentOn();
    // Three seconds: three times the lease.
    const [sessionId] = await trigger(
      fixture.server,
      await checksAt(location, [fixture.target.url('/long?ms=3000')]),
    );
    const session = await completed(fixture.server, sessionId as string);
    expect(session.status).toBe('PASSED');
    expect(fixture.target.count('/long')).toBe(1);
    const [run] = await fixture.server.server.context.db.query<{ leases: number; lease_losses: number }>(
      'SELECT leases, lease_losses FROM runs WHERE session_id = $1',
      [sessionId],
    );
    expect(run).toEqual({ leases: 1, lease_losses: 0 });
  });

  it('stops a run at its execution limit and reports TIMED_OUT', async () => {
    // 30 s for API checks, scaled down to 300 ms.
    const { location } = await agentOn({ AGENT_RUN_LIMIT_SCALE: '0.01' });
    const [sessionId] = await trigger(
      fixture.server,
      await checksAt(location, [fixture.target.url('/deadline?hold')]),
    );
    const session = await completed(fixture.server, sessionId as string);
    expect(session.status).toBe('TIMED_OUT');
    expect(session.results).toHaveLength(1);
    expect(session.results[0]).toMatchObject({ aborted: true, isCancelled: false });
    await waitFor('the request abandoned', () =>
      fixture.target.seen.some((r) => r.url.startsWith('/deadline') && r.abandoned),
    );
  });
});
