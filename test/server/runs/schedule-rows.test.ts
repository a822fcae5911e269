import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intervalAt, nextDueAfterChange, scheduleOf } from '../../../src/checks/schedule.js';
import { syncScheduleRows } from '../../../src/server/checks/schedule-row.js';
import { CLAIM_BATCH, CLAIM_LEAD_MS, scheduleDueChecks } from '../../../src/server/scheduler/tick.js';
import { type Db, openDb } from '../../../src/server/store/db.js';
import { copiesOfCheck } from '../../support/bulk-checks.js';
import { inPhaseOf } from '../../support/schedule.js';
import {
  createApiCheck,
  createLocation,
  databaseUrlOf,
  STORES,
  startTestServer,
  TestClock,
  type TestServer,
} from '../../support/server.js';
import { flushStatistics } from '../../support/statistics.js';

const at = (iso: string) => new Date(iso);

describe('the next-due time after a schedule change', () => {
  const every10s = { periodMs: 10_000, shiftMs: 0 };

  it('keeps the next-due time of an unchanged schedule', () => {
    expect(nextDueAfterChange(every10s, at('2026-04-01T10:00:10Z'), every10s)).toEqual(
      at('2026-04-01T10:00:10Z'),
    );
  });

  it('is the first interval of the new schedule that starts after the last claimed one', () => {
    // Claimed 10:00:00 of a 10 s schedule; now every 20 s: 10:00:00 is the same interval, so 10:00:20.
    expect(
      nextDueAfterChange(every10s, at('2026-04-01T10:00:10Z'), { periodMs: 20_000, shiftMs: 0 }),
    ).toEqual(at('2026-04-01T10:00:20Z'));
    // Claimed 10:00 of a 10-minute schedule; now every minute: 10:01 (due at once when that is past).
    expect(
      nextDueAfterChange(
        scheduleOf(10, undefined, 'check-a'),
        at('2026-04-01T10:10:00Z'),
        scheduleOf(1, 1, 'check-a'),
      ),
    ).toEqual(at('2026-04-01T10:00:06Z'));
    // Never claimed (due since the epoch): still due at once, whatever the new schedule.
    const never = nextDueAfterChange(every10s, new Date(0), scheduleOf(5, 25, 'check-a'));
    expect(never.getTime()).toBeLessThan(at('2000-01-01T00:00:00Z').getTime());
  });
});

describe.each(STORES)('schedule rows (%s)', (store) => {
  let server: TestServer;
  const clock = new TestClock('2026-04-01T10:00:00.000Z');
  const db = () => server.server.runs.db;
  const tick = () => server.server.runs.scheduleTick();

  beforeAll(async () => {
    server = await startTestServer(store, { runs: { background: false, clock: clock.now } });
    await createLocation(server, 'rows-a');
  });
  afterAll(async () => server?.close());

  const sessionsOf = async (checkId: string) =>
    (
      await db().query<{ started_at: Date }>(
        'SELECT started_at FROM check_sessions WHERE check_id = $1 ORDER BY started_at',
        [checkId],
      )
    ).map((s) => new Date(s.started_at).toISOString());
  const rowOf = async (checkId: string) =>
    (
      await db().query<{
        period_ms: string | number;
        shift_ms: string | number;
        next_due_at: Date;
        active: boolean;
      }>('SELECT period_ms, shift_ms, next_due_at, active FROM check_schedules WHERE check_id = $1', [
        checkId,
      ])
    )[0];
  const every10s = () =>
    createApiCheck(server, { frequency: 0, frequencyOffset: 10, privateLocations: ['rows-a'] });
  const nextDueOf = async (checkId: string) =>
    new Date((await rowOf(checkId))?.next_due_at as Date).toISOString();
  const put = async (checkId: string, body: Record<string, unknown>) => {
    const answer = await server.api('PUT', `/v1/checks/api/${checkId}`, body);
    expect(answer.status).toBe(200);
  };

  it('keeps the interval of a check saved without a new frequency, and moves it for a new one', async () => {
    clock.set('2026-04-01T10:00:05.000Z');
    const checkId = await every10s();
    const phased = inPhaseOf(checkId);
    clock.set(phased('2026-04-01T10:00:05.000Z'));
    await tick();
    await put(checkId, { name: 'Renamed', tags: ['x'] });
    clock.advance(2_000);
    await tick();
    expect(await sessionsOf(checkId)).toEqual([phased('2026-04-01T10:00:05.000Z')]);
    clock.set(phased('2026-04-01T10:00:10.000Z'));
    await tick();
    expect(await sessionsOf(checkId)).toHaveLength(2);
    // Every 20 s from now: the 20-s interval that holds the last claimed start has had its run; the next one is due.
    await put(checkId, { frequencyOffset: 20 });
    const every20s = scheduleOf(0, 20, checkId);
    const next = intervalAt(every20s, new Date(phased('2026-04-01T10:00:10.000Z'))).start.getTime() + 20_000;
    expect(await nextDueOf(checkId)).toBe(new Date(next).toISOString());
    clock.set(new Date(next - CLAIM_LEAD_MS - 1).toISOString());
    await tick();
    expect(await sessionsOf(checkId)).toHaveLength(2);
    clock.set(new Date(next).toISOString());
    await tick();
    expect(await sessionsOf(checkId)).toHaveLength(3);
  });

  it('stops scheduling a deactivated or deleted check, and never runs an interval twice across reactivation', async () => {
    clock.set('2026-04-01T11:00:05.000Z');
    const checkId = await every10s();
    const phased = inPhaseOf(checkId);
    clock.set(phased('2026-04-01T11:00:05.000Z'));
    await tick();
    await put(checkId, { activated: false });
    clock.set(phased('2026-04-01T11:00:12.000Z'));
    await tick();
    expect(await sessionsOf(checkId)).toHaveLength(1);
    // Activated again mid-interval: the interval that had no run runs at once.
    await put(checkId, { activated: true });
    await tick();
    expect(await sessionsOf(checkId)).toEqual([
      phased('2026-04-01T11:00:05.000Z'),
      phased('2026-04-01T11:00:12.000Z'),
    ]);
    // Off and on within an interval that already ran: nothing more until the next one.
    await put(checkId, { activated: false });
    await put(checkId, { activated: true });
    clock.advance(1_000);
    await tick();
    expect(await sessionsOf(checkId)).toHaveLength(2);

    const group = await server.api('POST', '/v1/check-groups', { name: 'Rows', activated: true });
    await put(checkId, { groupId: group.body.id });
    expect((await server.api('PUT', `/v1/check-groups/${group.body.id}`, { activated: false })).status).toBe(
      200,
    );
    expect((await rowOf(checkId))?.active).toBe(false);
    clock.set(phased('2026-04-01T11:00:21.000Z'));
    await tick();
    expect(await sessionsOf(checkId)).toHaveLength(2);
    expect((await server.api('PUT', `/v1/check-groups/${group.body.id}`, { activated: true })).status).toBe(
      200,
    );
    await tick();
    expect(await sessionsOf(checkId)).toHaveLength(3);

    expect((await server.api('DELETE', `/v1/checks/${checkId}`)).status).toBe(204);
    expect(await rowOf(checkId)).toBeUndefined();
    clock.set(phased('2026-04-01T11:00:31.000Z'));
    await tick();
    expect(await sessionsOf(checkId)).toHaveLength(3);
  });

  it.runIf(store === 'pglite')(
    'keeps the table small however many claims it took (no autovacuum)',
    async () => {
      clock.set('2026-04-01T16:00:00.000Z');
      await copiesOfCheck(db(), server.accountId, await every10s(), 199);
      const size = async () => {
        const [row] = await db().query<{ bytes: string | number }>(
          "SELECT pg_total_relation_size('check_schedules') AS bytes",
        );
        return Number(row?.bytes);
      };
      const minute = async () => {
        for (let i = 0; i < 6; i++) {
          await tick();
          clock.advance(10_000);
        }
        // What the server's sweeps do every 10 s.
        await flushStatistics(db());
        await server.server.runs.sweeper.tick(true);
      };
      await minute();
      await minute();
      const settled = await size();
      for (let i = 0; i < 4; i++) await minute();
      expect(await size()).toBeLessThanOrEqual(settled * 1.5);
    },
  );

  it('gives heartbeat checks no row', async () => {
    const answer = await server.api('POST', '/v1/checks/heartbeat', {
      name: 'Nightly backup',
      heartbeat: { period: 1, periodUnit: 'days', grace: 1, graceUnit: 'hours' },
    });
    expect(answer.status).toBe(201);
    expect(await rowOf(answer.body.id)).toBeUndefined();
  });

  it('skips the intervals a maintenance window pauses, and does not make them up', async () => {
    clock.set('2026-04-01T12:00:05.000Z');
    const checkId = await createApiCheck(server, {
      frequency: 0,
      frequencyOffset: 10,
      tags: ['maint-rows'],
      privateLocations: ['rows-a'],
    });
    const phased = inPhaseOf(checkId);
    clock.set(phased('2026-04-01T12:00:05.000Z'));
    const window = await server.api('POST', '/v1/maintenance-windows', {
      name: 'Pause',
      tags: ['maint-rows'],
      startsAt: phased('2026-04-01T12:00:00.000Z'),
      endsAt: phased('2026-04-01T12:00:15.000Z'),
    });
    expect(window.status).toBe(201);
    await tick();
    clock.set(phased('2026-04-01T12:00:11.000Z'));
    await tick();
    expect(await sessionsOf(checkId)).toEqual([]);
    clock.set(phased('2026-04-01T12:00:16.000Z')); // the window is over; 12:00:10 (in the check's phase) was skipped
    await tick();
    expect(await sessionsOf(checkId)).toEqual([]);
    clock.set(phased('2026-04-01T12:00:20.000Z'));
    await tick();
    expect(await sessionsOf(checkId)).toEqual([phased('2026-04-01T12:00:20.000Z')]);
  });

  it('claims the start of the next interval as intervalAt counts it', async () => {
    clock.set('2026-04-01T13:02:31.000Z');
    const checkId = await createApiCheck(server, {
      frequency: 5,
      frequencyOffset: 25,
      privateLocations: ['rows-a'],
    });
    await tick();
    const next = intervalAt(scheduleOf(5, 25, 'check-a'), clock.now()).start.getTime() + 5 * 60_000;
    expect(await nextDueOf(checkId)).toBe(new Date(next).toISOString());
  });

  it('schedules an upgraded store from the rows migration 060 made, after the last claim of each check', async () => {
    clock.set('2026-04-01T14:00:03.000Z');
    const loc = { privateLocations: ['rows-a'] };
    const claimed = await createApiCheck(server, { frequency: 0, frequencyOffset: 10, ...loc });
    const fresh = await createApiCheck(server, { frequency: 0, frequencyOffset: 10, ...loc });
    const others = [
      await createApiCheck(server, { frequency: 5, frequencyOffset: 25, ...loc }),
      await createApiCheck(server, { frequency: 1440, frequencyOffset: 6, ...loc }),
      await createApiCheck(server, { frequency: 120, frequencyOffset: 1, ...loc }),
      await createApiCheck(server, { frequency: 10, frequencyOffset: 100, ...loc }),
      await createApiCheck(server, { frequency: 0, frequencyOffset: 30, ...loc }),
      await createApiCheck(server, { frequency: 15, activated: false, ...loc }),
    ];
    const group = await server.api('POST', '/v1/check-groups', { name: 'Off', activated: false });
    others.push(await createApiCheck(server, { frequency: 1, groupId: group.body.id, ...loc }));
    const ids = [claimed, fresh, ...others];
    const shape = async (id: string) => {
      const row = await rowOf(id);
      return { period: Number(row?.period_ms), shift: Number(row?.shift_ms), active: row?.active };
    };
    const expected = await Promise.all(ids.map(shape));

    // The store as it was before 060: schedule_slots, one claim (this interval of `claimed`).
    await db().exec(`
      DROP TABLE check_schedules;
      CREATE TABLE schedule_slots (check_id text NOT NULL, slot_start timestamptz NOT NULL, session_id text NOT NULL,
                                   PRIMARY KEY (check_id, slot_start));
      DELETE FROM schema_migrations WHERE name IN ('060-check-schedules', '080-sub-minute-phase');`);
    await db().query(
      `INSERT INTO schedule_slots VALUES ($1, '2026-04-01T13:59:50Z', 'old'), ($1, $2, 'old')`,
      [claimed, '2026-04-01T14:00:00Z'],
    );
    await server.restart();

    // 060 made rows on multiples of the period; 080 moved sub-minute ones to their phase, as the server does.
    expect(await Promise.all(ids.map(shape))).toEqual(expected);
    // The first interval of its phase that starts after the last claim (14:00:00).
    const nextOfClaimed =
      intervalAt(scheduleOf(0, 10, claimed), at('2026-04-01T14:00:00Z')).start.getTime() + 10_000;
    expect(await nextDueOf(claimed)).toBe(new Date(nextOfClaimed).toISOString());
    // Rows the migrations made are the rows the server keeps: syncing them again changes nothing.
    await db().transaction((tx) => syncScheduleRows(tx, server.accountId, ids));
    expect(await Promise.all(ids.map(shape))).toEqual(expected);

    const beforeLead = new Date(nextOfClaimed - CLAIM_LEAD_MS - 1).toISOString();
    clock.set(beforeLead);
    await tick();
    expect(await sessionsOf(claimed)).toEqual([]);
    expect(await sessionsOf(fresh)).toEqual([beforeLead]);
    clock.set(new Date(nextOfClaimed).toISOString());
    await tick();
    expect(await sessionsOf(claimed)).toEqual([new Date(nextOfClaimed).toISOString()]);
    expect(await sessionsOf(others.at(-1) as string)).toEqual([]);
    expect(await sessionsOf(others.at(-2) as string)).toEqual([]);
  });
});

describe.runIf(STORES.includes('postgres'))('two schedulers racing on one PostgreSQL database', () => {
  let server: TestServer;
  let pools: Db[] = [];
  const clock = new TestClock('2026-04-01T15:00:00.000Z');

  beforeAll(async () => {
    server = await startTestServer('postgres', { runs: { background: false, clock: clock.now } });
    await createLocation(server, 'race-loc');
    pools = [
      await openDb({ databaseUrl: databaseUrlOf(server) }),
      await openDb({ databaseUrl: databaseUrlOf(server) }),
    ];
  });
  afterAll(async () => {
    for (const pool of pools) await pool.close();
    await server?.close();
  });

  it('never makes two sessions for one interval, over more checks than one claim takes', async () => {
    const count = CLAIM_BATCH * 2 + 100;
    const first = await createApiCheck(server, {
      frequency: 0,
      frequencyOffset: 10,
      privateLocations: ['race-loc'],
    });
    const db = server.server.runs.db;
    const ids = await copiesOfCheck(db, server.accountId, first, count - 1);

    const tickOn = (pool: Db) => scheduleDueChecks(pool, clock.now(), () => {});
    for (let interval = 0; interval < 3; interval++) {
      // Two ticks per pool at once, as two replicas whose loops overlap.
      await Promise.all(pools.flatMap((pool) => [tickOn(pool), tickOn(pool)]));
      clock.advance(10_000);
    }
    const sessions = await db.query<{ check_id: string; started_at: Date }>(
      'SELECT check_id, started_at FROM check_sessions WHERE check_id = ANY($1::text[])',
      [ids],
    );
    // Each interval once: the three ticks scheduled every check's three intervals, and the next one for the
    // checks whose phase brought it within the claim lead of a tick.
    const intervals = new Set(
      sessions.map((s) => `${s.check_id} ${intervalAt(scheduleOf(0, 10, s.check_id), s.started_at).index}`),
    );
    expect(intervals.size).toBe(sessions.length);
    const perCheck = new Map<string, number>();
    for (const s of sessions) perCheck.set(s.check_id, (perCheck.get(s.check_id) ?? 0) + 1);
    expect(perCheck.size).toBe(count);
    for (const n of perCheck.values()) expect([3, 4]).toContain(n);
    const runs = await db.query<{ n: string }>(
      'SELECT count(*) AS n FROM runs WHERE check_id = ANY($1::text[])',
      [ids],
    );
    expect(Number(runs[0]?.n)).toBe(sessions.length);
  });
});
