/**
 * End to end with `vantage agent` as a real process (`node --import tsx src/cli/main.ts agent`), where signals
 * and a crash matter: SIGTERM during runs, and `kill -9` after a result was spooled.
 */
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestAgent, type TestAgent, waitFor } from '../support/agent.js';
import { AgentProcess } from '../support/agent-process.js';
import {
  agentsOf,
  apiCheckAt,
  checkResults,
  completed,
  runIdsOf,
  storedResultsPerRun,
  trigger,
  useServerAndTarget,
} from '../support/runs.js';
import { type CreatedLocation, createApiCheck, createLocation } from '../support/server.js';
import { spooledResults } from '../support/spool-files.js';

const fixture = useServerAndTarget();

const processes: AgentProcess[] = [];
const inProcess: TestAgent[] = [];
afterEach(async () => {
  for (const p of processes.splice(0)) p.kill('SIGKILL');
  await Promise.all(inProcess.splice(0).map((a) => a.agent.stop()));
});

async function agentProcess(
  location: CreatedLocation,
  env: Record<string, string> = {},
): Promise<AgentProcess> {
  const agent = new AgentProcess({
    API_KEY: location.key,
    API_URL: fixture.server.url,
    AGENT_HEALTH_PORT: '0',
    AGENT_DATA_DIR: env.AGENT_DATA_DIR ?? (await mkdtemp(join(tmpdir(), 'vantage-agent-e2e-'))),
    ...env,
  });
  processes.push(agent);
  return agent;
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

const readiness = async (port: number) => (await fetch(`http://127.0.0.1:${port}/-/readiness`)).status;

// Each test starts agent processes from source: generous limits for a loaded machine (they are waits, not goals).
describe('vantage agent, the process, with the control plane', { timeout: 120_000 }, () => {
  it('on SIGTERM: not ready at once, running checks complete, exit 0, the rest runs on another agent', async () => {
    const location = await createLocation(fixture.server, 'sigterm');
    const leaving = await agentProcess(location, { JOB_CONCURRENCY: '3', SHUTDOWN_GRACE_SECONDS: '20' });
    const port = await leaving.healthPort();
    await waitFor(
      'the agent connected',
      async () => (await agentsOf(fixture.server, location.id)).count === 1,
    );
    expect(await readiness(port)).toBe(200);

    // Two checks run on it; its third slot stays granted to the control plane.
    const running = await trigger(
      fixture.server,
      await checksAt(location, ['/term-run-0?ms=3000', '/term-run-1?ms=3000']),
    );
    await waitFor('both checks at the target', () => fixture.target.count('/term-run-') === 2);

    // Not ready at once: while the two checks it runs are still under way, not after they drained. (A bound in
    // milliseconds would measure the machine's load, not the agent.)
    leaving.kill('SIGTERM');
    await waitFor('not ready', async () => (await readiness(port)) === 503);
    expect(fixture.target.inFlight()).toBe(2);
    await leaving.waitForLog('shutting down', (l) => String(l.msg).startsWith('shutting down'));

    // Checks due now are not started by the leaving agent (it released its credit) but by another one.
    const later = await trigger(
      fixture.server,
      await checksAt(location, ['/term-later-0', '/term-later-1', '/term-later-2']),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fixture.target.count('/term-later-')).toBe(0);
    const other = await startTestAgent({ url: fixture.server.url, key: location.key });
    inProcess.push(other);

    const { code } = await leaving.exited;
    expect(code).toBe(0);
    expect(leaving.lines.some((l) => l.msg === 'agent stopped')).toBe(true);
    for (const id of [...running, ...later])
      expect((await completed(fixture.server, id)).status).toBe('PASSED');
    expect(leaving.startedRuns().sort()).toEqual(await runIdsOf(fixture.server, running));
    expect(other.logs.startedRuns().sort()).toEqual(await runIdsOf(fixture.server, later));
    for (const path of ['/term-run-0', '/term-run-1', '/term-later-0', '/term-later-1', '/term-later-2']) {
      expect(fixture.target.count(path)).toBe(1);
    }
    expect(await storedResultsPerRun(fixture.server, [...running, ...later])).toEqual([1, 1, 1, 1, 1]);
  });

  it('after kill -9 with a result in its spool, the next start with the same AGENT_DATA_DIR delivers it once', async () => {
    const location = await createLocation(fixture.server, 'crash');
    const dataDir = await mkdtemp(join(tmpdir(), 'vantage-agent-e2e-'));
    const first = await agentProcess(location, { AGENT_DATA_DIR: dataDir, JOB_CONCURRENCY: '2' });
    await first.healthPort();
    await waitFor(
      'the agent connected',
      async () => (await agentsOf(fixture.server, location.id)).count === 1,
    );

    const [doneCheck, midRunCheck] = await checksAt(location, ['/crash-done?hold', '/crash-mid-run?hold']);
    const [done, midRun] = await trigger(fixture.server, [doneCheck as string, midRunCheck as string]);
    await waitFor('both checks at the target', () => fixture.target.held('/crash-') === 2);
    const [doneRun] = await runIdsOf(fixture.server, [done as string]);

    // The control plane is away when the first check ends: its result can only go to the spool.
    await fixture.server.stop();
    fixture.target.release('/crash-done');
    await first.waitForLog('the result spooled', (l) => l.msg === 'run finished' && l.runId === doneRun);
    expect(await spooledResults(dataDir)).toHaveLength(1);
    first.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');

    await fixture.server.start();
    const second = await agentProcess(location, { AGENT_DATA_DIR: dataDir, JOB_CONCURRENCY: '2' });
    const session = await completed(fixture.server, done as string);
    expect(session.status).toBe('PASSED');
    expect(session.results).toHaveLength(1);
    expect(await checkResults(fixture.server, doneCheck as string)).toHaveLength(1);
    expect(await storedResultsPerRun(fixture.server, [done as string])).toEqual([1]);
    expect(fixture.target.count('/crash-done')).toBe(1);
    expect(second.startedRuns()).not.toContain(doneRun);

    // The run killed mid-way lost its lease and runs again; it too ends with one result.
    await waitFor('the killed run started again', () => fixture.target.held('/crash-mid-run') === 1, 15_000);
    fixture.target.release('/crash-mid-run');
    const retried = await completed(fixture.server, midRun as string);
    expect(retried.status).toBe('PASSED');
    expect(retried.results).toHaveLength(1);
    expect(fixture.target.count('/crash-mid-run')).toBe(2);
    expect(
      fixture.target.seen.filter((r) => r.url.startsWith('/crash-mid-run')).map((r) => r.abandoned),
    ).toEqual([true, false]);

    second.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  });

  it('after kill -9 with results that finished together in one spool file, the next start delivers each once', async () => {
    const location = await createLocation(fixture.server, 'crash-group');
    const dataDir = await mkdtemp(join(tmpdir(), 'vantage-agent-e2e-'));
    const first = await agentProcess(location, { AGENT_DATA_DIR: dataDir, JOB_CONCURRENCY: '6' });
    await first.healthPort();
    await waitFor(
      'the agent connected',
      async () => (await agentsOf(fixture.server, location.id)).count === 1,
    );
    const paths = [0, 1, 2, 3, 4, 5].map((i) => `/crash-group-${i}?hold`);
    const checks = await checksAt(location, paths);
    const sessions = await trigger(fixture.server, checks);
    await waitFor('every check at the target', () => fixture.target.held('/crash-group-') === 6);

    // The control plane is away when they all end at once: their results go to the spool, written together.
    await fixture.server.stop();
    fixture.target.release('/crash-group-');
    await waitFor(
      'every result spooled',
      () => first.lines.filter((l) => l.msg === 'run finished').length === 6,
    );
    const files = (await readdir(join(dataDir, 'spool'))).filter((f) => !f.startsWith('.'));
    expect(files.some((f) => f.endsWith('.results.jsonl'))).toBe(true);
    expect(files.length).toBeLessThan(6);
    first.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');

    await fixture.server.start();
    const second = await agentProcess(location, { AGENT_DATA_DIR: dataDir, JOB_CONCURRENCY: '6' });
    for (const id of sessions) expect((await completed(fixture.server, id)).status).toBe('PASSED');
    expect(await storedResultsPerRun(fixture.server, sessions)).toEqual(sessions.map(() => 1));
    for (const path of paths) expect(fixture.target.count(path.replace('?hold', '?'))).toBe(1);
    expect(second.startedRuns()).toEqual([]);
    await waitFor('an empty spool', async () => (await readdir(join(dataDir, 'spool'))).length === 0);
    second.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  });
});
