import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isInProgress } from '../../../src/server/maintenance/occurrences.js';
import type { MaintenanceWindowDocument } from '../../../src/server/maintenance/schema.js';
import {
  createApiCheck,
  createLocation,
  startTestServer,
  TestClock,
  type TestServer,
} from '../../support/server.js';

const MINUTE = 60_000;

describe('maintenance windows in progress', () => {
  const window = (fields: Partial<MaintenanceWindowDocument>): MaintenanceWindowDocument => ({
    name: 'w',
    tags: ['t'],
    startsAt: '2026-01-31T22:00:00.000Z',
    endsAt: '2026-01-31T23:00:00.000Z',
    repeatInterval: null,
    repeatUnit: null,
    repeatEndsAt: null,
    pauseRuns: true,
    silenceAlerts: true,
    ...fields,
  });

  it('knows an occurrence of a repeated window, months keeping their last day and years their date', () => {
    const monthly = window({ repeatUnit: 'MONTH', repeatInterval: 1 });
    expect(isInProgress(monthly, new Date('2026-02-28T22:30:00Z'))).toBe(true);
    expect(isInProgress(monthly, new Date('2026-03-31T22:59:59Z'))).toBe(true);
    expect(isInProgress(monthly, new Date('2026-03-30T22:30:00Z'))).toBe(false);
    const yearly = window({ repeatUnit: 'YEAR', repeatInterval: 1, repeatEndsAt: '2030-01-01T00:00:00Z' });
    expect(isInProgress(yearly, new Date('2029-01-31T22:10:00Z'))).toBe(true);
    expect(isInProgress(yearly, new Date('2030-01-31T22:10:00Z'))).toBe(false);
    const daily = window({ repeatUnit: 'DAY', repeatInterval: 2 });
    expect(isInProgress(daily, new Date('2036-02-02T22:10:00Z'))).toBe(true);
    expect(isInProgress(daily, new Date('2036-02-03T22:10:00Z'))).toBe(false);
    expect(isInProgress(window({}), new Date('2026-01-31T21:59:59Z'))).toBe(false);
  });
});

describe('maintenance windows pause scheduled runs', () => {
  let server: TestServer;
  const clock = new TestClock('2026-06-01T12:00:00.000Z');

  beforeAll(async () => {
    server = await startTestServer('pglite', { runs: { background: false, clock: clock.now } });
    await createLocation(server, 'maint');
  });
  afterAll(async () => {
    await server?.close();
  });

  const sessionsOf = async (checkId: string) =>
    (
      await server.server.context.db.query('SELECT run_source FROM check_sessions WHERE check_id = $1', [
        checkId,
      ])
    ).length;

  it('skips the scheduled runs of checks and groups of its tags; manual runs still execute', async () => {
    const group = await server.api('POST', '/v1/check-groups', {
      name: 'Tagged group',
      tags: ['paused'],
      locations: [],
    });
    const inGroup = await createApiCheck(server, {
      privateLocations: ['maint'],
      frequency: 1,
      groupId: group.body.id,
    });
    const tagged = await createApiCheck(server, {
      privateLocations: ['maint'],
      frequency: 1,
      tags: ['paused'],
    });
    const silencedOnly = await createApiCheck(server, {
      privateLocations: ['maint'],
      frequency: 1,
      tags: ['quiet'],
    });
    const other = await createApiCheck(server, { privateLocations: ['maint'], frequency: 1 });
    const now = clock.now().getTime();
    const span = {
      startsAt: new Date(now - MINUTE).toISOString(),
      endsAt: new Date(now + 10 * MINUTE).toISOString(),
    };
    expect(
      (await server.api('POST', '/v1/maintenance-windows', { name: 'Pause', tags: ['paused'], ...span }))
        .status,
    ).toBe(201);
    const quiet = await server.api('POST', '/v1/maintenance-windows', {
      name: 'Only silence',
      tags: ['quiet'],
      pauseRuns: false,
      ...span,
    });
    expect(quiet.body).toMatchObject({ pauseRuns: false, silenceAlerts: true });

    await server.server.runs.scheduleTick();
    expect([
      await sessionsOf(inGroup),
      await sessionsOf(tagged),
      await sessionsOf(silencedOnly),
      await sessionsOf(other),
    ]).toEqual([0, 0, 1, 1]);
    const manual = await server.api('POST', '/v2/check-sessions/trigger', { target: { checkId: [tagged] } });
    expect(manual.status).toBe(201);
    expect(await sessionsOf(tagged)).toBe(1);

    clock.advance(11 * MINUTE);
    await server.server.runs.scheduleTick();
    expect(await sessionsOf(inGroup)).toBe(1);
  });

  it('accepts YEAR as a repeat unit', async () => {
    const created = await server.api('POST', '/v1/maintenance-windows', {
      name: 'Yearly',
      tags: ['x'],
      startsAt: '2026-12-31T23:00:00Z',
      endsAt: '2027-01-01T01:00:00Z',
      repeatUnit: 'YEAR',
      repeatInterval: 1,
    });
    expect(created.status).toBe(201);
    const next = await server.api('GET', `/v1/maintenance-windows/${created.body.id}/maintenances/1`);
    expect(next.body).toMatchObject({ startsAt: '2027-12-31T23:00:00.000Z', status: 'SCHEDULED' });
  });
});
