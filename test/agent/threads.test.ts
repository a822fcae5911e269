/**
 * AGENT_THREADS: an agent that runs its URL, API, TCP and DNS runs in worker threads reports what an agent running
 * them on its main thread reports, stops them at their limit, and says how many threads it runs.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentOptions } from '../../src/agent/agent.js';
import { startTestAgent, type TestAgent, waitFor } from '../support/agent.js';
import { agentsOf, apiCheckAt, completed, FAST_RUNS, trigger, useServerAndTarget } from '../support/runs.js';
import { type CreatedLocation, createApiCheck, createLocation } from '../support/server.js';

const fixture = useServerAndTarget(FAST_RUNS);

const agents: TestAgent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.agent.stop()));
});

let locations = 0;
async function agentOn(
  env: Record<string, string>,
  options: AgentOptions = {},
): Promise<{ location: CreatedLocation; agent: TestAgent }> {
  const location = await createLocation(fixture.server, `threads-${++locations}`);
  const agent = await startTestAgent({ url: fixture.server.url, key: location.key }, env, options);
  agents.push(agent);
  await waitFor('the agent connected', async () => (await agentsOf(fixture.server, location.id)).count === 1);
  return { location, agent };
}

async function healthOf(agent: TestAgent): Promise<{ threads: number }> {
  return JSON.parse((await agent.health('/health')).text);
}

/** A passing check, one whose assertion fails, and one whose target refuses the connection. */
function threeChecks(location: CreatedLocation): Record<string, unknown>[] {
  const on = { privateLocations: [location.slugName] };
  return [
    apiCheckAt(fixture.target.url('/ok'), on),
    apiCheckAt(fixture.target.url('/wrong'), {
      ...on,
      request: {
        url: fixture.target.url('/wrong'),
        method: 'GET',
        assertions: [
          { source: 'STATUS_CODE', comparison: 'EQUALS', target: '201', property: '', regex: null },
        ],
      },
    }),
    apiCheckAt('http://127.0.0.1:9/closed', on),
  ];
}

/** What a session's final result says, without what differs from run to run (ids, times). */
function gist(session: {
  status: string;
  results: { hasFailures: boolean; hasErrors: boolean; apiCheckResult: Record<string, any> }[];
}) {
  const [result] = session.results;
  return {
    status: session.status,
    hasFailures: result?.hasFailures,
    hasErrors: result?.hasErrors,
    responseStatus: result?.apiCheckResult.response?.status ?? null,
    assertions: result?.apiCheckResult.assertions,
    requestError: result?.apiCheckResult.requestError ?? null,
  };
}

async function runAll(location: CreatedLocation) {
  const ids: string[] = [];
  for (const fields of threeChecks(location)) ids.push(await createApiCheck(fixture.server, fields));
  const sessions = await trigger(fixture.server, ids);
  return Promise.all(sessions.map(async (id) => gist(await completed(fixture.server, id))));
}

describe('agent: runs in worker threads (AGENT_THREADS)', () => {
  it('reports the same results as an agent without threads, and says it runs one', async () => {
    const threaded = await agentOn({ AGENT_THREADS: '1', JOB_CONCURRENCY: '4' });
    const plain = await agentOn({ AGENT_THREADS: '0', JOB_CONCURRENCY: '4' });
    expect((await healthOf(threaded.agent)).threads).toBe(0); // started with its first run
    const [inThreads, onMain] = await Promise.all([runAll(threaded.location), runAll(plain.location)]);
    expect(inThreads.map((s) => s.status)).toEqual(['PASSED', 'FAILED', 'FAILED']);
    expect(inThreads[0]?.responseStatus).toBe(200);
    expect(inThreads[1]?.assertions).toEqual([expect.objectContaining({ actual: 200, target: '201' })]);
    expect(inThreads).toEqual(onMain);
    expect((await healthOf(threaded.agent)).threads).toBe(1);
    expect((await healthOf(plain.agent)).threads).toBe(0);
  });

  it('stops a run in a thread at its execution limit and reports TIMED_OUT', async () => {
    // 30 s for API checks, scaled down to 300 ms.
    const { location } = await agentOn({ AGENT_THREADS: '1', AGENT_RUN_LIMIT_SCALE: '0.01' });
    const checkId = await createApiCheck(
      fixture.server,
      apiCheckAt(fixture.target.url('/threads-deadline?hold'), { privateLocations: [location.slugName] }),
    );
    const [sessionId] = await trigger(fixture.server, [checkId]);
    const session = await completed(fixture.server, sessionId as string);
    expect(session.status).toBe('TIMED_OUT');
    expect(session.results[0]).toMatchObject({ aborted: true, isCancelled: false });
    await waitFor('the request abandoned', () =>
      fixture.target.seen.some((r) => r.url.startsWith('/threads-deadline') && r.abandoned),
    );
  });

  it('times a run in a thread by the thread: a busy main thread does not stretch its response time', async () => {
    // The target is a process of its own, so that it answers while this one (agents included) is blocked; it says
    // when each request arrives and answers it 200 ms later.
    const target = spawn(
      process.execPath,
      [
        '-e',
        `require('node:http').createServer((req, res) => { console.log('arrived'); setTimeout(() => res.end('ok'), 200); })
           .listen(0, '127.0.0.1', function () { console.log(this.address().port); });`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const lines = createInterface({ input: target.stdout });
      const [port] = (await once(lines, 'line')) as [string];
      const timed = async (env: Record<string, string>) => {
        const { location } = await agentOn(env);
        const url = `http://127.0.0.1:${port}/slow`;
        const checkId = await createApiCheck(
          fixture.server,
          apiCheckAt(url, { privateLocations: [location.slugName] }),
        );
        const arrived = once(lines, 'line');
        const [sessionId] = await trigger(fixture.server, [checkId]);
        await arrived;
        const blockedUntil = Date.now() + 1000;
        while (Date.now() < blockedUntil) {
          // The main thread is busy, as with a burst of results or a large check to validate.
        }
        const session = await completed(fixture.server, sessionId as string);
        expect(session.status).toBe('PASSED');
        return session.results[0].responseTime as number;
      };
      // On the main thread the response waits for the main thread; in a thread it is read when it comes.
      expect(await timed({ AGENT_THREADS: '0' })).toBeGreaterThanOrEqual(900);
      expect(await timed({ AGENT_THREADS: '1' })).toBeLessThan(700);
    } finally {
      target.kill();
    }
  });

  it('auto (the default): no thread while the main thread has time, threads once it is busy', async () => {
    // Two CPUs make one thread; a window of 200 ms in which the event loop ran callbacks 80 % of the time is busy.
    const { location, agent } = await agentOn(
      { JOB_CONCURRENCY: '4' },
      { cores: 2, busyWatch: { windowMs: 200, share: 0.8 } },
    );
    const checkId = await createApiCheck(
      fixture.server,
      apiCheckAt(fixture.target.url('/auto'), { privateLocations: [location.slugName] }),
    );
    const runOnce = async () => {
      const [sessionId] = await trigger(fixture.server, [checkId]);
      expect((await completed(fixture.server, sessionId as string)).status).toBe('PASSED');
    };
    await runOnce();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await healthOf(agent)).threads).toBe(0);

    const blockedUntil = Date.now() + 1500;
    while (Date.now() < blockedUntil) {
      // A main thread with no time to spare.
    }
    await waitFor('a thread started', async () => (await healthOf(agent)).threads === 1);
    expect(agent.logs.text).toContain(
      'the main thread is busy: URL, API, TCP and DNS runs go to worker threads',
    );
    await runOnce();
  });
});
