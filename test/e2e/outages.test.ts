/**
 * End to end: the control plane goes down and comes back (same store, same port) while agents run checks and
 * while a check is scheduled every 10 seconds. Nothing is lost and nothing happens twice.
 *
 * The server's clock runs five times as fast as the wall clock, so a 10-second interval passes in 2 seconds. Leases
 * keep the protocol's 45 s (9 s of wall time): a restart on a loaded machine takes seconds, and a lease that ran
 * out while the control plane was down would rightly hand its run to another agent — a second run this file is
 * not about (test/server/runs/queue.test.ts covers lost leases).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intervalAt, scheduleOf } from '../../src/checks/schedule.js';
import { startTestAgent, type TestAgent, waitFor } from '../support/agent.js';
import { type CountingTarget, startCountingTarget } from '../support/counting-target.js';
import {
  acceleratedClock,
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
  type CreatedLocation,
  createApiCheck,
  createLocation,
  STORES,
  startTestServer,
  type TestServer,
} from '../support/server.js';

const SPEED = 5;
const INTERVAL_MS = 10_000;
/** On a loaded machine the last scheduler tick before a stop may come half a second (of wall time) before it. */
const TICK_SLACK_MS = 500 * SPEED;

let target: CountingTarget;
beforeAll(async () => {
  target = await startCountingTarget();
});
afterAll(async () => {
  await target?.close();
});

describe.each(STORES)('the control plane restarts while agents run checks (%s)', (store) => {
  let server: TestServer;
  let location: CreatedLocation;
  const agents: TestAgent[] = [];
  const clock = acceleratedClock(SPEED);
  beforeAll(async () => {
    server = await startTestServer(store, {
      runs: { ...FAST_RUNS, clock, leaseTtlMs: 45_000 },
    });
    location = await createLocation(server, 'outage');
    // Results are sent within 0.1 s of their end, so those that end while the control plane is down meet the
    // outage (by default a result waits up to two seconds for company while other runs are in progress).
    for (let i = 0; i < 2; i++) {
      agents.push(
        await startTestAgent(
          { url: server.url, key: location.key },
          { JOB_CONCURRENCY: '3' },
          { resultBatchLingerMs: 100 },
        ),
      );
    }
    await waitFor('both agents connected', async () => (await agentsOf(server, location.id)).count === 2);
  });
  afterAll(async () => {
    await Promise.all(agents.map((a) => a.agent.stop()));
    await server?.close();
  });

  const sessionsOfCheck = async (checkId: string) =>
    server.server.context.db.query<{ id: string; started_at: Date }>(
      'SELECT id, started_at FROM check_sessions WHERE check_id = $1 ORDER BY started_at',
      [checkId],
    );

  it('every result arrives once: results finished while it was down are delivered after', async () => {
    const paths = Array.from({ length: 6 }, (_, i) => `/restart-${store}-${i}`);
    const checks: string[] = [];
    for (const [i, path] of paths.entries()) {
      const url = target.url(`${path}?ms=${300 + 250 * i}`);
      checks.push(await createApiCheck(server, apiCheckAt(url, { privateLocations: ['outage'] })));
    }
    const sessions = await trigger(server, checks);
    await waitFor('every check at the target', () => target.inFlight() === 6);

    await new Promise((resolve) => setTimeout(resolve, 150));
    await server.stop();
    // Some runs end while the control plane is down (their results wait in the spools), others after.
    await new Promise((resolve) => setTimeout(resolve, 700));
    await server.start();

    for (const id of sessions) {
      const session = await completed(server, id);
      expect(session.status).toBe('PASSED');
      expect(session.results).toHaveLength(1);
    }
    expect(await storedResultsPerRun(server, sessions)).toEqual(sessions.map(() => 1));
    for (const check of checks) expect(await checkResults(server, check)).toHaveLength(1);
    for (const path of paths) expect(target.count(`${path}?`)).toBe(1);
    const started = agents.flatMap((a) => a.logs.startedRuns());
    expect(started.sort()).toEqual(await runIdsOf(server, sessions));
    // The outage was real: results that finished while it lasted waited in a spool, and were sent after it.
    const entries = agents.flatMap((a) => a.logs.entries());
    const held = entries.filter((e) => String(e.msg).startsWith('results cannot reach the control plane'));
    expect(held.length).toBeGreaterThan(0);
    expect(held.every((e) => Number(e.spooled) >= 1)).toBe(true);
    expect(entries.some((e) => e.msg === 'the control plane takes results again')).toBe(true);

    // The agents are back: a check triggered now runs too.
    const after = await createApiCheck(
      server,
      apiCheckAt(target.url(`/after-restart-${store}`), { privateLocations: ['outage'] }),
    );
    const [afterSession] = await trigger(server, [after]);
    expect((await completed(server, afterSession as string)).status).toBe('PASSED');
  });

  it('a check scheduled every 10 s runs once in every interval across a restart, none twice, none skipped', async () => {
    const checkId = await createApiCheck(
      server,
      apiCheckAt(target.url(`/every-10s-${store}`), {
        activated: true,
        frequency: 0,
        frequencyOffset: 10,
        privateLocations: ['outage'],
      }),
    );
    // Restart right after an interval was claimed (its run under way): the new server sees that interval again,
    // then the next one.
    await waitFor('a second interval scheduled', async () => (await sessionsOfCheck(checkId)).length === 2);
    const downAt = clock().getTime();
    await server.restart();
    const upAt = clock().getTime();
    await waitFor(
      'two more intervals scheduled',
      async () => (await sessionsOfCheck(checkId)).length >= 4,
      (3 * INTERVAL_MS) / SPEED + 5000,
    );
    expect((await server.api('PUT', `/v1/checks/${checkId}`, { activated: false })).status).toBe(200);
    // A scheduler tick that read the check before it was deactivated may still claim one more interval: let it
    // finish, so every session is counted below (a run executed twice would still show at the target).
    await new Promise((resolve) => setTimeout(resolve, 1000));

    const sessions = await sessionsOfCheck(checkId);
    const schedule = scheduleOf(0, INTERVAL_MS / 1000, checkId);
    const intervals = sessions.map((s) => intervalAt(schedule, new Date(s.started_at)).index);
    const startOf = (i: number) => i * schedule.periodMs + schedule.shiftMs;
    // None twice; none skipped, but for an interval that began and ended while no server ran (a restart on a
    // loaded machine can outlast 2 s of wall time): such intervals are not made up for, by design.
    const first = intervals[0] ?? 0;
    const expected: number[] = [];
    for (let i = first; i <= (intervals.at(-1) ?? first); i++) {
      const downThroughout = startOf(i) >= downAt - TICK_SLACK_MS && startOf(i + 1) <= upAt;
      if (!downThroughout || intervals.includes(i)) expected.push(i);
    }
    expect(intervals).toEqual(expected);
    for (const { id } of sessions) {
      const session = await completed(server, id);
      expect(session).toMatchObject({ status: 'PASSED', runSource: 'SCHEDULER', runLocations: ['outage'] });
      expect(session.results).toHaveLength(1);
    }
    expect(await checkResults(server, checkId)).toHaveLength(sessions.length);
    expect(target.count(`/every-10s-${store}`)).toBe(sessions.length);
  });
});
