import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { intervalAt, SUB_MINUTE_PHASE_STEP_MS, scheduleOf } from '../../../src/checks/schedule.js';
import { leaseRuns } from '../../../src/server/queue/lease.js';
import { QUIET_MAX_MS } from '../../../src/server/scheduler/quiet.js';
import { CLAIM_LEAD_MS, CLAIM_SOON_MS, NEXT_DUE } from '../../../src/server/scheduler/tick.js';
import { inPhaseOf } from '../../support/schedule.js';
import {
  createApiCheck,
  createLocation,
  databaseUrlOf,
  STORES,
  type Store,
  startTestServer,
  TestClock,
  type TestServer,
} from '../../support/server.js';

const at = (iso: string) => new Date(iso);
const starts = (frequency: number, offset: number | undefined, times: string[]) =>
  times.map((t) => intervalAt(scheduleOf(frequency, offset, 'check-a'), at(t)).start.toISOString());

/** A control plane whose scheduler the test drives (no loops of its own, the test's clock), with these locations. */
async function drivenServer(store: Store, clock: TestClock, ...locations: string[]): Promise<TestServer> {
  const server = await startTestServer(store, { runs: { background: false, clock: clock.now } });
  for (const slug of locations) await createLocation(server, slug);
  return server;
}

/** A check's sessions, oldest first. */
function sessionsOfCheck(server: TestServer, checkId: string) {
  return server.server.runs.db.query<{ run_locations: string[]; run_source: string }>(
    'SELECT run_locations, run_source FROM check_sessions WHERE check_id = $1 ORDER BY started_at, id',
    [checkId],
  );
}

describe('intervals of a check', () => {
  it('runs sub-minute checks every frequencyOffset seconds, at a phase of their own', () => {
    // 'check-a' starts 1.9 s into each 10-s and 20-s period, 11.9 s into each 30-s one.
    expect(
      starts(0, 10, ['2026-04-01T10:00:11.899Z', '2026-04-01T10:00:11.900Z', '2026-04-01T10:00:25.000Z']),
    ).toEqual(['2026-04-01T10:00:01.900Z', '2026-04-01T10:00:11.900Z', '2026-04-01T10:00:21.900Z']);
    expect(starts(0, 30, ['2026-04-01T10:00:59.000Z'])).toEqual(['2026-04-01T10:00:41.900Z']);
    expect(starts(0, 20, ['2026-04-01T10:00:41.000Z'])).toEqual(['2026-04-01T10:00:21.900Z']);
    expect(scheduleOf(0, 10, 'check-b').shiftMs).toBe(4200);
  });

  it('spreads sub-minute checks over their period, so they do not all start at once', () => {
    const perPhase = new Map<number, number>();
    for (let i = 0; i < 3000; i++) {
      const { shiftMs } = scheduleOf(0, 10, `check-${i}`);
      expect(shiftMs % SUB_MINUTE_PHASE_STEP_MS).toBe(0);
      perPhase.set(shiftMs, (perPhase.get(shiftMs) ?? 0) + 1);
    }
    // 100 phases of 100 ms: each holds about 30 checks.
    expect(perPhase.size).toBe(100);
    expect(Math.max(...perPhase.values())).toBeLessThan(60);
  });

  it('runs every `frequency` minutes on the clock without an offset', () => {
    expect(starts(1, undefined, ['2026-04-01T10:00:59.000Z'])).toEqual(['2026-04-01T10:00:00.000Z']);
    expect(starts(10, undefined, ['2026-04-01T10:19:59.000Z', '2026-04-01T10:20:00.000Z'])).toEqual([
      '2026-04-01T10:10:00.000Z',
      '2026-04-01T10:20:00.000Z',
    ]);
    expect(starts(1440, undefined, ['2026-04-01T23:59:00.000Z'])).toEqual(['2026-04-01T00:00:00.000Z']);
  });

  it('shifts intervals by the offset: 6-second steps up to 60 minutes, hours above', () => {
    // frequency 5: offsets 1..50, each 6 s; 25 → 150 s into every 5-minute period.
    expect(starts(5, 25, ['2026-04-01T10:02:29.000Z', '2026-04-01T10:02:30.000Z'])).toEqual([
      '2026-04-01T09:57:30.000Z',
      '2026-04-01T10:02:30.000Z',
    ]);
    expect(starts(1, 5, ['2026-04-01T10:00:31.000Z'])).toEqual(['2026-04-01T10:00:30.000Z']);
    // frequency 1440: offsets 1..24, each an hour.
    expect(starts(1440, 6, ['2026-04-01T05:59:00.000Z', '2026-04-01T06:00:00.000Z'])).toEqual([
      '2026-03-31T06:00:00.000Z',
      '2026-04-01T06:00:00.000Z',
    ]);
    expect(starts(120, 1, ['2026-04-01T10:30:00.000Z'])).toEqual(['2026-04-01T09:00:00.000Z']);
    // The largest offset is a whole period: the same as none.
    expect(starts(10, 100, ['2026-04-01T10:05:00.000Z'])).toEqual(['2026-04-01T10:00:00.000Z']);
  });

  it('numbers consecutive intervals consecutively', () => {
    const schedule = scheduleOf(0, 10, 'check-a');
    const a = intervalAt(schedule, at('2026-04-01T10:00:05.000Z'));
    const b = intervalAt(schedule, at('2026-04-01T10:00:15.000Z'));
    expect(b.index - a.index).toBe(1);
  });
});

describe.each(STORES)('the scheduler (%s)', (store) => {
  let server: TestServer;
  const clock = new TestClock('2026-04-01T10:00:00.000Z');

  beforeAll(async () => {
    server = await drivenServer(store, clock, 'sched-a', 'sched-b', 'sched-c');
  });
  afterAll(async () => server?.close());

  const sessionsOf = (checkId: string) => sessionsOfCheck(server, checkId);

  /** Leases what the location's queue hands out now, and expects `count` runs. */
  const lease = async (location: string, count: number) => {
    const runs = await leaseRuns(server.server.runs.db, {
      accountId: server.accountId,
      location,
      agentId: 'sched-agent',
      credits: { light: 10, browser: 0 },
      kinds: ['API'],
      now: clock.now(),
      leaseTtlMs: 45_000,
    });
    expect(runs).toHaveLength(count);
  };

  it('schedules each interval once, taking the locations in turn', async () => {
    clock.set('2026-04-01T10:00:05.000Z');
    const checkId = await createApiCheck(server, {
      frequency: 0,
      frequencyOffset: 10,
      privateLocations: ['sched-a', 'sched-b'],
    });
    clock.set(inPhaseOf(checkId)('2026-04-01T10:00:05.000Z'));
    await server.server.runs.scheduleTick();
    await server.server.runs.scheduleTick();
    clock.advance(2_000);
    await server.server.runs.scheduleTick();
    expect(await sessionsOf(checkId)).toHaveLength(1);
    clock.advance(2_000); // 10:00:09: the next interval is claimed within its lead
    await server.server.runs.scheduleTick();
    expect(await sessionsOf(checkId)).toHaveLength(2);
    clock.advance(1_000); // 10:00:10, the next interval
    await server.server.runs.scheduleTick();
    clock.advance(10_000);
    await server.server.runs.scheduleTick();
    const sessions = await sessionsOf(checkId);
    expect(sessions.map((s) => s.run_source)).toEqual(['SCHEDULER', 'SCHEDULER', 'SCHEDULER']);
    const turns = sessions.map((s) => s.run_locations);
    // One location per interval, alternating.
    for (const locations of turns) expect(locations).toHaveLength(1);
    expect(turns[0]).not.toEqual(turns[1]);
    expect(turns[2]).toEqual(turns[0]);
  });

  it('claims an interval 1 to 2 s before it starts; its session starts and its run is handed out then', async () => {
    clock.set('2026-04-01T11:00:05.000Z');
    const checkId = await createApiCheck(server, {
      frequency: 0,
      frequencyOffset: 10,
      privateLocations: ['sched-c'],
    });
    const phased = inPhaseOf(checkId);
    clock.set(phased('2026-04-01T11:00:05.000Z'));
    await server.server.runs.scheduleTick(); // the current interval, at once
    await lease('sched-c', 1);
    // Beyond the lead: never claimed. Within a second: claimed, whatever else is due (between the two, it is claimed
    // with the checks of any claim that starts then).
    clock.set(new Date(Date.parse(phased('2026-04-01T11:00:10.000Z')) - CLAIM_LEAD_MS - 1).toISOString());
    await server.server.runs.scheduleTick();
    expect(await sessionsOf(checkId)).toHaveLength(1);
    clock.set(new Date(Date.parse(phased('2026-04-01T11:00:10.000Z')) - CLAIM_SOON_MS).toISOString());
    await server.server.runs.scheduleTick();
    const [, early] = await server.server.runs.db.query<{ started_at: Date }>(
      'SELECT started_at FROM check_sessions WHERE check_id = $1 ORDER BY started_at',
      [checkId],
    );
    expect(early?.started_at.toISOString()).toBe(phased('2026-04-01T11:00:10.000Z'));
    await lease('sched-c', 0);
    clock.set(phased('2026-04-01T11:00:10.000Z'));
    await lease('sched-c', 1);
  });

  it('claims about a second of intervals at once, each 1 to 2 s before it starts', async () => {
    clock.set('2026-04-01T12:00:00.000Z');
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      ids.push(
        await createApiCheck(server, { frequency: 0, frequencyOffset: 10, privateLocations: ['sched-c'] }),
      );
    }
    await server.server.runs.scheduleTick(); // each check's current interval, at once
    const newest = async () =>
      new Map(
        (
          await server.server.runs.db.query<{ check_id: string; started_at: Date }>(
            'SELECT check_id, max(started_at) AS started_at FROM check_sessions WHERE check_id = ANY($1) GROUP BY check_id',
            [ids],
          )
        ).map((row) => [row.check_id, row.started_at.getTime()]),
      );
    let before = await newest();
    const claimTimes = new Set<number>();
    let claimed = 0;
    // Ten seconds of 100-ms ticks: every check's next interval starts in them.
    for (let step = 0; step < 100; step++) {
      clock.advance(100);
      await server.server.runs.scheduleTick();
      const now = clock.now().getTime();
      const after = await newest();
      for (const [id, start] of after) {
        if (start === before.get(id)) continue;
        claimed++;
        claimTimes.add(now);
        expect(start - now).toBeLessThanOrEqual(CLAIM_LEAD_MS);
        // Once the checks' first intervals are behind (a new check's next interval may start a tick after its
        // first): claimed more than the last tick's second ahead, so never late.
        if (step >= 20) expect(start - now).toBeGreaterThan(CLAIM_SOON_MS - 100);
      }
      before = after;
    }
    expect(claimed).toBeGreaterThanOrEqual(ids.length);
    // A claim takes everything due within the lead, and the next starts once something is due within a second:
    // claims are more than a second apart, whatever the phases of the checks.
    expect(claimTimes.size).toBeLessThanOrEqual(10);
  });

  it('runs a parallel check at all its locations at once', async () => {
    const checkId = await createApiCheck(server, {
      frequency: 1,
      runParallel: true,
      privateLocations: ['sched-a', 'sched-b'],
    });
    await server.server.runs.scheduleTick();
    const [session] = await sessionsOf(checkId);
    expect(session?.run_locations).toEqual(['sched-a', 'sched-b']);
  });

  it('does not schedule deactivated checks or checks of a deactivated group', async () => {
    const off = await createApiCheck(server, { activated: false, privateLocations: ['sched-a'] });
    const group = await server.api('POST', '/v1/check-groups', { name: 'Paused', activated: false });
    expect(group.status).toBe(201);
    const inGroup = await createApiCheck(server, { groupId: group.body.id, privateLocations: ['sched-a'] });
    await server.server.runs.scheduleTick();
    expect(await sessionsOf(off)).toEqual([]);
    expect(await sessionsOf(inGroup)).toEqual([]);
  });

  it('never schedules an interval twice across a restart, and does not make up missed ones', async () => {
    clock.set('2026-04-01T11:00:30.000Z');
    const checkId = await createApiCheck(server, { frequency: 1, privateLocations: ['sched-a'] });
    await server.server.runs.scheduleTick();
    await server.restart();
    await server.server.runs.scheduleTick();
    expect(await sessionsOf(checkId)).toHaveLength(1);
    // Down for three intervals: only the current one is scheduled.
    clock.advance(3 * 60_000);
    await server.server.runs.scheduleTick();
    expect(await sessionsOf(checkId)).toHaveLength(2);
  });
});

describe.each(STORES)('the scheduler between claims (%s)', (store) => {
  let server: TestServer;
  const clock = new TestClock('2026-04-01T10:00:00.000Z');

  beforeAll(async () => {
    server = await drivenServer(store, clock, 'quiet-a');
  });
  afterAll(async () => server?.close());

  const sessionsOf = (checkId: string) => sessionsOfCheck(server, checkId);

  it('asks the store about once a second while nothing is due soon, and at once after a check changes here', async () => {
    const { runs } = server.server;
    const first = await createApiCheck(server, { frequency: 10, privateLocations: ['quiet-a'] });
    await runs.scheduleTick(); // its first interval, at once
    expect(await sessionsOf(first)).toHaveLength(1);
    const asked = vi.spyOn(runs.db, 'query');
    clock.advance(100);
    await runs.scheduleTick();
    // The claim told when the next check comes due: the tick after it does not ask the store again.
    expect(asked).not.toHaveBeenCalled();
    // Three seconds of 100-ms ticks with the next interval minutes away: another replica's change is seen within
    // a second, so the store is asked once a second, not at each of the 30 ticks.
    const ticks = (3 * 1000) / 100;
    for (let i = 1; i < ticks; i++) {
      clock.advance(100);
      await runs.scheduleTick();
    }
    expect(asked.mock.calls.length).toBeGreaterThanOrEqual((ticks * 100) / QUIET_MAX_MS);
    expect(asked.mock.calls.length).toBeLessThanOrEqual((ticks * 100) / QUIET_MAX_MS + 1);
    asked.mockRestore();
    // A check made on this replica is claimed at the next tick, quiet or not.
    const second = await createApiCheck(server, { frequency: 10, privateLocations: ['quiet-a'] });
    clock.advance(100);
    await runs.scheduleTick();
    expect(await sessionsOf(second)).toHaveLength(1);
  });
});

describe.each(STORES)('the scheduler’s loop on the system clock (%s)', (store) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(store);
    await createLocation(server, 'sleep-a');
  });
  afterAll(async () => server?.close());

  it('sleeps through the quiet ticks: it wakes about once a second while nothing is due soon, not ten times', async () => {
    const { runs } = server.server;
    const checkId = await createApiCheck(server, { frequency: 10, privateLocations: ['sleep-a'] });
    // Its first interval is claimed at once: a check made here ends the loop's sleep.
    await vi.waitFor(async () => expect(await sessionsOfCheck(server, checkId)).toHaveLength(1), {
      timeout: 5_000,
    });
    const ticks = vi.spyOn(runs, 'scheduleTick');
    const watchedMs = 2_500;
    await new Promise((resolve) => setTimeout(resolve, watchedMs));
    const woken = ticks.mock.calls.length;
    ticks.mockRestore();
    // At each 100-ms tick that would be 25; the sleep lasts until the quiet ends, QUIET_MAX_MS at most.
    expect(woken).toBeGreaterThanOrEqual(Math.floor(watchedMs / QUIET_MAX_MS) - 1);
    expect(woken).toBeLessThanOrEqual(Math.ceil(watchedMs / QUIET_MAX_MS) + 1);
  });
});

describe.each(STORES)('the claim of a check due soon (%s)', (store) => {
  let server: TestServer;
  const clock = new TestClock('2026-04-01T11:00:00.000Z');

  // A server each: another test's check due within the claim's lead would be claimed with this one.
  beforeEach(async () => {
    server = await drivenServer(store, clock, 'soon-a');
  });
  afterEach(async () => server?.close());

  const nextDueOf = async (checkId: string) => {
    const [row] = await server.server.runs.db.query<{ next_due_at: Date }>(
      'SELECT next_due_at FROM check_schedules WHERE check_id = $1',
      [checkId],
    );
    return new Date(row?.next_due_at ?? 0).getTime();
  };
  const sessionsOf = (checkId: string) => sessionsOfCheck(server, checkId);

  it('is made by the probe that finds it due in a little over a second, not by one a tick later', async () => {
    const { runs } = server.server;
    const checkId = await createApiCheck(server, { frequency: 10, privateLocations: ['soon-a'] });
    await runs.scheduleTick(); // its first interval, at once
    // A fresh process knows no next due time: its first tick probes.
    await server.restart();
    // The probes a second apart after a claim come just over a second before the next check is due.
    clock.set(new Date((await nextDueOf(checkId)) - 1_200).toISOString());
    await server.server.runs.scheduleTick();
    expect(await sessionsOf(checkId)).toHaveLength(2);
  });

  it('is made without asking the store first when the last probe said when it comes due', async () => {
    const { runs } = server.server;
    const checkId = await createApiCheck(server, { frequency: 10, privateLocations: ['soon-a'] });
    await runs.scheduleTick(); // its first interval, at once
    const dueAt = await nextDueOf(checkId);
    clock.set(new Date(dueAt - 2_000).toISOString());
    await runs.scheduleTick(); // a probe: due in two seconds, not claimed yet
    expect(await sessionsOf(checkId)).toHaveLength(1);
    const asked = vi.spyOn(runs.db, 'query');
    clock.set(new Date(dueAt - CLAIM_SOON_MS).toISOString());
    await runs.scheduleTick();
    const probes = asked.mock.calls.filter(([sql]) => sql === NEXT_DUE);
    asked.mockRestore();
    expect(probes).toEqual([]);
    expect(await sessionsOf(checkId)).toHaveLength(2);
  });
});

describe.runIf(STORES.includes('postgres'))('two replicas on one PostgreSQL database', () => {
  let first: TestServer;
  let second: TestServer;
  const clock = new TestClock('2026-04-01T12:00:00.000Z');

  beforeAll(async () => {
    first = await drivenServer('postgres', clock, 'replica-loc');
    second = await startTestServer('postgres', {
      databaseUrl: databaseUrlOf(first),
      runs: { background: false, clock: clock.now },
    });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it('schedules every interval of every check exactly once', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(
        await createApiCheck(first, { frequency: 0, frequencyOffset: 10, privateLocations: ['replica-loc'] }),
      );
    for (let tick = 0; tick < 3; tick++) {
      await Promise.all([
        first.server.runs.scheduleTick(),
        second.server.runs.scheduleTick(),
        second.server.runs.scheduleTick(),
      ]);
      clock.advance(10_000);
    }
    const sessions = await first.server.runs.db.query<{ check_id: string; started_at: Date }>(
      'SELECT check_id, started_at FROM check_sessions WHERE check_id = ANY($1::text[])',
      [ids],
    );
    // Each interval once. A replica's tick that comes after the other's claim may take the check's next interval
    // within the claim lead, when the check's phase puts it there: three intervals each, or four.
    const intervals = sessions.map(
      (s) => `${s.check_id} ${intervalAt(scheduleOf(0, 10, s.check_id), s.started_at).index}`,
    );
    expect(new Set(intervals).size).toBe(sessions.length);
    for (const id of ids) expect([3, 4]).toContain(sessions.filter((s) => s.check_id === id).length);
  });
});
