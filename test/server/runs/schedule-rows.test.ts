import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intervalAt, nextDueAfterChange, scheduleOf } from '../../../src/checks/schedule.js';
import { syncScheduleRows } from '../../../src/server/checks/schedule-row.js';
import { CLAIM_BATCH, scheduleDueChecks } from '../../../src/server/scheduler/tick.js';
import { type Db, openDb } from '../../../src/server/store/db.js';
import { copiesOfCheck } from '../../support/bulk-checks.js';
import {
  createApiCheck,
  createLocation,
  databaseUrlOf,
  STORES,
  startTestServer,
  TestClock,
  type TestServer,
} from '../../support/server.js';

const at = (iso: string) => new Date(iso);

describe('the next-due time after a schedule change', () => {
  it('keeps the next-due time of an unchanged schedule', () => {
    const every10s = scheduleOf(0, 10);
    expect(nextDueAfterChange(every10s, at('2026-04-01T10:00:10Z'), every10s)).toEqual(
      at('2026-04-01T10:00:10Z'),
    );
  });

  it('is the first interval of the new schedule that starts after the last claimed one', () => {
    // Claimed 10:00:00 of a 10 s schedule; now every 20 s: 10:00:00 is the same interval, so 10:00:20.
    expect(nextDueAfterChange(scheduleOf(0, 10), at('2026-04-01T10:00:10Z'), scheduleOf(0, 20))).toEqual(
      at('2026-04-01T10:00:20Z'),
    );
    // Claimed 10:00 of a 10-minute schedule; now every minute: 10:01 (due at once when that is past).
    expect(
      nextDueAfterChange(scheduleOf(10, undefined), at('2026-04-01T10:10:00Z'), scheduleOf(1, 1)),
    ).toEqual(at('2026-04-01T10:00:06Z'));
    // Never claimed (due since the epoch): still due at once, whatever the new schedule.
    const never = nextDueAfterChange(scheduleOf(0, 10), new Date(0), scheduleOf(5, 25));
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
    await tick();
    await put(checkId, { name: 'Renamed', tags: ['x'] });
    clock.advance(2_000);
    await tick();
    expect(await sessionsOf(checkId)).toEqual(['2026-04-01T10:00:05.000Z']);
    clock.set('2026-04-01T10:00:10.000Z');
    await tick();
    expect(await sessionsOf(checkId)).toHaveLength(2);
    // Every 20 s from now: 10:00:00–10:00:20 has had its run (10:00:05, 10:00:10), so the next is 10:00:20.
    await put(checkId, { frequencyOffset: 20 });
    clock.set('2026-04-01T10:00:15.000Z');
    await tick();
    expect(await sessionsOf(checkId)).toHaveLength(2);
    expect(await nextDueOf(checkId)).toBe('2026-04-01T10:00:20.000Z');
    clock.set('2026-04-01T10:00:20.000Z');
    await tick();
    expect(await sessionsOf(checkId)).toHaveLength(3);
  });

  it('stops scheduling a deactivated or deleted check, and never runs an interval twice across reactivation', async () => {
    clock.set('2026-04-01T11:00:05.000Z');
    const checkId = await every10s();
    await tick();
    await put(checkId, { activated: false });
    clock.set('2026-04-01T11:00:12.000Z');
    await tick();
    expect(await sessionsOf(checkId)).toHaveLength(1);
    // Activated again mid-interval: the interval that had no run runs at once.
    await put(checkId, { activated: true });
    await tick();
    expect(await sessionsOf(checkId)).toEqual(['2026-04-01T11:00:05.000Z', '2026-04-01T11:00:12.000Z']);
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
    clock.set('2026-04-01T11:00:21.000Z');
    await tick();
    expect(await sessionsOf(checkId)).toHaveLength(2);
    expect((await server.api('PUT', `/v1/check-groups/${group.body.id}`, { activated: true })).status).toBe(
      200,
    );
    await tick();
    expect(await sessionsOf(checkId)).toHaveLength(3);

    expect((await server.api('DELETE', `/v1/checks/${checkId}`)).status).toBe(204);
    expect(await rowOf(checkId)).toBeUndefined();
    clock.set('2026-04-01T11:00:31.000Z');
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
        await server.server.runs.metricsTick();
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
    const window = await server.api('POST', '/v1/maintenance-windows', {
      name: 'Pause',
      tags: ['maint-rows'],
      startsAt: '2026-04-01T12:00:00.000Z',
      endsAt: '2026-04-01T12:00:15.000Z',
    });
    expect(window.status).toBe(201);
    await tick();
    clock.set('2026-04-01T12:00:11.000Z');
    await tick();
    expect(await sessionsOf(checkId)).toEqual([]);
    clock.set('2026-04-01T12:00:16.000Z'); // the window is over; 12:00:10 was skipped
    await tick();
    expect(await sessionsOf(checkId)).toEqual([]);
    clock.set('2026-04-01T12:00:20.000Z');
    await tick();
    expect(await sessionsOf(checkId)).toEqual(['2026-04-01T12:00:20.000Z']);
  });

  it('claims the start of the next interval as intervalAt counts it', async () => {
    clock.set('2026-04-01T13:02:31.000Z');
    const checkId = await createApiCheck(server, {
      frequency: 5,
      frequencyOffset: 25,
      privateLocations: ['rows-a'],
    });
    await tick();
    const next = intervalAt(scheduleOf(5, 25), clock.now()).start.getTime() + 5 * 60_000;
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
      DELETE FROM schema_migrations WHERE name = '060-check-schedules';`);
    await db().query(
      `INSERT INTO schedule_slots VALUES ($1, '2026-04-01T13:59:50Z', 'old'), ($1, $2, 'old')`,
      [claimed, '2026-04-01T14:00:00Z'],
    );
    await server.restart();

    expect(await Promise.all(ids.map(shape))).toEqual(expected);
    expect(await nextDueOf(claimed)).toBe('2026-04-01T14:00:10.000Z');
    // Rows the migration made are the rows the server keeps: syncing them again changes nothing.
    await db().transaction((tx) => syncScheduleRows(tx, server.accountId, ids));
    expect(await Promise.all(ids.map(shape))).toEqual(expected);

    await tick();
    expect(await sessionsOf(claimed)).toEqual([]);
    expect(await sessionsOf(fresh)).toEqual(['2026-04-01T14:00:03.000Z']);
    clock.set('2026-04-01T14:00:10.000Z');
    await tick();
    expect(await sessionsOf(claimed)).toEqual(['2026-04-01T14:00:10.000Z']);
    expect(await sessionsOf(fresh)).toHaveLength(2);
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
    const rows = await db.query<{ n: string; sessions: string }>(
      `SELECT count(DISTINCT check_id) AS n, count(*) AS sessions FROM check_sessions WHERE check_id = ANY($1::text[])`,
      [ids],
    );
    expect(Number(rows[0]?.n)).toBe(count);
    expect(Number(rows[0]?.sessions)).toBe(count * 3);
    const runs = await db.query<{ n: string }>(
      'SELECT count(*) AS n FROM runs WHERE check_id = ANY($1::text[])',
      [ids],
    );
    expect(Number(runs[0]?.n)).toBe(count * 3);
  });
});
