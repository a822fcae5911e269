/**
 * End to end: checks created through the public API run on real agents against real local services, and their
 * sessions and results are read back through the API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoTarget, startDemoTarget } from '../../src/cli/demo/target.js';
import { version } from '../../src/version.js';
import { startTestAgent, type TestAgent, waitFor } from '../support/agent.js';
import { type CountingTarget, startCountingTarget } from '../support/counting-target.js';
import {
  agentsOf,
  apiCheckAt,
  checkResults,
  completed,
  FAST_RUNS,
  runIdsOf,
  storedResultsPerRun,
  trigger,
} from '../support/runs.js';
import {
  createApiCheck,
  createLocation,
  STORES,
  startTestServer,
  type TestServer,
} from '../support/server.js';
import { echoServer, type TcpTestServer } from '../support/tcp-servers.js';

let demo: DemoTarget;
let echo: TcpTestServer;
let target: CountingTarget;
beforeAll(async () => {
  [demo, echo, target] = await Promise.all([startDemoTarget(), echoServer(), startCountingTarget()]);
});
afterAll(async () => {
  await Promise.all([demo?.close(), echo?.close(), target?.close()]);
});

describe.each(STORES)('checks created through the API, run by agents (%s)', (store) => {
  let server: TestServer;
  const agents: TestAgent[] = [];
  beforeAll(async () => {
    server = await startTestServer(store, { runs: FAST_RUNS });
  });
  afterAll(async () => {
    await Promise.all(agents.map((a) => a.agent.stop()));
    await server?.close();
  });

  it('a triggered check runs on an agent, completes, and its result is readable through the API', async () => {
    const location = await createLocation(server, 'office');
    agents.push(await startTestAgent({ url: server.url, key: location.key }));
    await waitFor(
      'the agent shown on its location',
      async () => (await agentsOf(server, location.id)).count === 1,
    );
    expect(await agentsOf(server, location.id)).toMatchObject({
      count: 1,
      connected: true,
      versions: [version],
    });

    const api = await createApiCheck(
      server,
      apiCheckAt(`${demo.url}/api/health`, {
        name: 'Shop health',
        privateLocations: ['office'],
        request: {
          url: `${demo.url}/api/health`,
          assertions: [
            { source: 'STATUS_CODE', comparison: 'EQUALS', target: '200', property: '', regex: null },
            { source: 'JSON_BODY', comparison: 'EQUALS', target: 'ok', property: '$.status', regex: null },
          ],
        },
      }),
    );
    const tcp = (
      await server.api('POST', '/v1/checks/tcp', {
        name: 'Echo port',
        activated: false,
        doubleCheck: false,
        privateLocations: ['office'],
        request: {
          hostname: '127.0.0.1',
          port: echo.port,
          data: 'ping',
          assertions: [
            { source: 'RESPONSE_DATA', comparison: 'CONTAINS', target: 'ping', property: '', regex: null },
          ],
        },
      })
    ).body.id as string;

    const [apiSession, tcpSession] = await trigger(server, [api, tcp]);
    const done = await completed(server, apiSession as string);
    expect(done).toMatchObject({
      checkSessionId: apiSession,
      checkId: api,
      checkType: 'API',
      name: 'Shop health',
      status: 'PASSED',
      runSource: 'TRIGGER_API',
      runLocations: ['office'],
    });
    expect(done.stoppedAt).not.toBeNull();
    expect(done.results).toHaveLength(1);
    const [result] = done.results;
    expect(result).toMatchObject({
      checkId: api,
      checkType: 'API',
      runLocation: 'office',
      resultType: 'FINAL',
      attempts: 1,
      hasErrors: false,
      hasFailures: false,
    });
    expect(result.apiCheckResult.response.status).toBe(200);
    expect(result.apiCheckResult.assertions.map((a: { error: unknown }) => a.error)).toEqual([null, null]);

    const listed = await checkResults(server, api);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ id: result.checkResultId, checkSessionId: apiSession });

    const tcpDone = await completed(server, tcpSession as string);
    expect(tcpDone).toMatchObject({ status: 'PASSED', checkType: 'TCP' });
    expect(tcpDone.results[0].tcpCheckResult.response.data).toContain('ping');
    expect(await storedResultsPerRun(server, [apiSession as string, tcpSession as string])).toEqual([1, 1]);
  });

  it('with two agents on one location, every run is executed exactly once', async () => {
    const location = await createLocation(server, 'pair');
    const pair: TestAgent[] = [];
    for (let i = 0; i < 2; i++) {
      pair.push(await startTestAgent({ url: server.url, key: location.key }, { JOB_CONCURRENCY: '2' }));
    }
    agents.push(...pair);
    await waitFor('both agents connected', async () => (await agentsOf(server, location.id)).count === 2);

    const paths = Array.from({ length: 12 }, (_, i) => `/once-${store}-${i}`);
    const checks = [];
    for (const path of paths) {
      checks.push(
        await createApiCheck(
          server,
          apiCheckAt(target.url(`${path}?ms=100`), { privateLocations: ['pair'] }),
        ),
      );
    }
    const sessions = await trigger(server, checks);
    for (const id of sessions) expect((await completed(server, id)).status).toBe('PASSED');

    for (const path of paths) expect(target.count(`${path}?`)).toBe(1);
    expect(await storedResultsPerRun(server, sessions)).toEqual(sessions.map(() => 1));
    for (const check of checks) expect(await checkResults(server, check)).toHaveLength(1);
    // Each run on one agent, and both agents took part.
    const [first, second] = pair.map((a) => a.logs.startedRuns());
    expect(first?.length).toBeGreaterThan(0);
    expect(second?.length).toBeGreaterThan(0);
    expect([...(first ?? []), ...(second ?? [])].sort()).toEqual(await runIdsOf(server, sessions));
    // Neither agent was sent more than it had room for.
    expect(target.maxInFlight()).toBeLessThanOrEqual(4);
    for (const agent of pair) expect(agent.logs.text).not.toContain('without credit');
  });

  it('cancel reaches the agent running the check, and the session ends CANCELLED', async () => {
    const checkId = await createApiCheck(
      server,
      apiCheckAt(target.url(`/cancel-${store}?hold`), { privateLocations: ['pair'] }),
    );
    const [sessionId] = await trigger(server, [checkId]);
    await waitFor('the check at the target', () => target.held(`/cancel-${store}`) === 1);

    const cancelled = await server.api('POST', `/v1/check-sessions/${sessionId}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('CANCELLED');

    // The agent stops the request and reports the run CANCELLED.
    await waitFor('the request abandoned', () =>
      target.seen.some((r) => r.url.includes(`/cancel-${store}`) && r.abandoned),
    );
    await waitFor('the agent result', async () => (await checkResults(server, checkId)).length === 1);
    const session = await completed(server, sessionId as string);
    expect(session.status).toBe('CANCELLED');
    expect(session.results).toHaveLength(1);
    expect(session.results[0]).toMatchObject({ isCancelled: true, aborted: true, resultType: 'FINAL' });
    // Made by the agent that ran it, not by the control plane for a run nobody took.
    expect(session.results[0].apiCheckResult.request.url).toBe(target.url(`/cancel-${store}?hold`));
    expect(target.count(`/cancel-${store}`)).toBe(1);
    const finished = agents
      .flatMap((a) => a.logs.entries())
      .find((e) => e.msg === 'run finished' && e.status === 'CANCELLED');
    expect(finished).toBeDefined();
  });
});
