import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { enqueueRuns } from '../../../src/server/queue/enqueue.js';
import { leaseRuns } from '../../../src/server/queue/lease.js';
import type { RunPayload } from '../../../src/server/queue/run.js';
import { lockRun } from '../../../src/server/queue/sweep.js';
import { pruneExpired } from '../../../src/server/retention/prune.js';
import {
  createApiCheck,
  createLocation,
  STORES,
  startTestServer,
  TestClock,
  type TestServer,
} from '../../support/server.js';

const DAY_MS = 86_400_000;

describe.each(STORES)("runs' payloads, kept once per check and day (%s)", (store) => {
  let server: TestServer;
  const clock = new TestClock();
  let location: Awaited<ReturnType<typeof createLocation>>;
  let n = 0;

  beforeAll(async () => {
    server = await startTestServer(store, { runs: { background: false, clock: clock.now } });
  });
  beforeEach(async () => {
    n += 1;
    location = await createLocation(server, `payloads-${n}`);
  });
  afterAll(async () => server?.close());

  const db = () => server.server.runs.db;
  const lease = () =>
    leaseRuns(db(), {
      accountId: server.accountId,
      location: location.slugName,
      agentId: 'agent-1',
      credits: { light: 100, browser: 0 },
      kinds: ['API'],
      now: clock.now(),
      leaseTtlMs: 45_000,
    });
  const trigger = async (checkId: string): Promise<string> => {
    const { status, body } = await server.api('POST', '/v2/check-sessions/trigger', {
      target: { checkId: [checkId] },
    });
    expect(status).toBe(201);
    return body.checkSessions[0].checkSessionId;
  };
  const keysOf = async (checkId: string) =>
    db().query<{ payload: unknown; payload_key: string }>(
      'SELECT payload, payload_key FROM runs WHERE check_id = $1 ORDER BY scheduled_at',
      [checkId],
    );
  const storedPayloads = async (keys: readonly string[]) =>
    db().query<{ key: string; payload: RunPayload }>(
      'SELECT * FROM run_payloads WHERE key = ANY($1::text[])',
      [keys],
    );

  /** A check triggered once, its run's payload key, and a copy of its payload with the check renamed. */
  const triggeredAndRenamed = async (name: string) => {
    const checkId = await createApiCheck(server, { privateLocations: [location.slugName], activated: false });
    await trigger(checkId);
    const [run] = await keysOf(checkId);
    const key = run?.payload_key ?? '';
    const [stored] = await storedPayloads([key]);
    const renamed = { ...stored?.payload, check: { ...stored?.payload.check, name } };
    return { checkId, key, renamed };
  };

  it('stores one payload for many runs of a check, and every leased run carries it', async () => {
    const checkId = await createApiCheck(server, { privateLocations: [location.slugName], activated: false });
    for (let i = 0; i < 4; i++) await trigger(checkId);

    const runs = await keysOf(checkId);
    expect(runs).toHaveLength(4);
    expect(runs.every((run) => run.payload === null)).toBe(true);
    const keys = new Set(runs.map((run) => run.payload_key));
    expect(keys.size).toBe(1);
    const [stored] = await storedPayloads([...keys]);
    expect(stored?.payload.check.id).toBe(checkId);

    const leased = await lease();
    expect(leased).toHaveLength(4);
    for (const run of leased) {
      expect(run.payload.check.id).toBe(checkId);
      expect(run.payload.runSource).toBe('TRIGGER_API');
      expect(run).not.toHaveProperty('kept_payload');
    }
  });

  it('keeps the check as it was for runs made before it changed', async () => {
    const checkId = await createApiCheck(server, { privateLocations: [location.slugName], activated: false });
    await trigger(checkId);
    const changed = await server.api('PUT', `/v1/checks/${checkId}`, { name: 'Renamed' });
    expect(changed.status).toBe(200);
    clock.advance(1000);
    await trigger(checkId);

    expect(new Set((await keysOf(checkId)).map((run) => run.payload_key)).size).toBe(2);
    const names = (await lease()).map((run) => run.payload.check.name);
    expect(names).toEqual(['Health', 'Renamed']);
  });

  it('stores a payload again after the transaction that first stored it rolled back', async () => {
    const checkId = await createApiCheck(server, { privateLocations: [location.slugName], activated: false });
    const sessionId = await trigger(checkId);
    const [queued] = await lease();
    if (!queued) throw new Error('no run leased');
    const payload: RunPayload = { ...queued.payload, check: { ...queued.payload.check, name: 'Only once' } };
    const run = {
      accountId: server.accountId,
      sessionId,
      checkId,
      checkType: 'API' as const,
      location: location.slugName,
      attempt: 2,
      payload,
      dueAt: clock.now(),
    };
    // Twice, so that the first attempt's store has seen the key refused as already there, had it been kept.
    for (let i = 0; i < 2; i++) {
      await expect(
        db().transaction(async (tx) => {
          await enqueueRuns(tx, [run]);
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
    }
    const [runId] = await db().transaction((tx) => enqueueRuns(tx, [run]));

    const [again] = await lease();
    expect(again?.id).toBe(runId);
    expect(again?.payload.check.name).toBe('Only once');
    const [stored] = await storedPayloads([again?.payload_key ?? '']);
    expect(stored?.payload.check.name).toBe('Only once');
  });

  it('reads from the store a payload this process never held (another replica made the run)', async () => {
    const { checkId, key: made, renamed: elsewhere } = await triggeredAndRenamed('From another replica');
    const key = `${made.slice(0, 10)}:made-by-another-replica`;
    await db().query('INSERT INTO run_payloads (key, payload) VALUES ($1, $2::jsonb)', [
      key,
      JSON.stringify(elsewhere),
    ]);
    await db().query('UPDATE runs SET payload_key = $2 WHERE check_id = $1', [checkId, key]);

    const [leased] = await lease();
    expect(leased?.payload.check.name).toBe('From another replica');
  });

  it('reads the payload of a run made before payloads were kept apart from its own row', async () => {
    const { checkId, renamed: legacy } = await triggeredAndRenamed('From its row');
    await db().query('UPDATE runs SET payload = $2::jsonb, payload_key = NULL WHERE check_id = $1', [
      checkId,
      JSON.stringify(legacy),
    ]);

    const [leased] = await lease();
    expect(leased?.payload.check.name).toBe('From its row');
  });

  it('gives a run whose payload is gone (a control plane down past the retention) a stand-in its reaper can end', async () => {
    const checkId = await createApiCheck(server, { privateLocations: [location.slugName], activated: false });
    await trigger(checkId);
    await db().query("UPDATE runs SET payload_key = '2000-01-01:removed-by-retention' WHERE check_id = $1", [
      checkId,
    ]);
    const [run] = await db().query<{ id: string }>('SELECT id FROM runs WHERE check_id = $1', [checkId]);

    const locked = await db().transaction((tx) => lockRun(tx, run?.id ?? ''));
    expect(locked?.payload.check).toEqual({ id: checkId, checkType: 'API' });
  });

  it("removes a day's payloads a day after the retention cutoff passed it, and keeps the later days'", async () => {
    const checkId = await createApiCheck(server, { privateLocations: [location.slugName], activated: false });
    await trigger(checkId);
    clock.advance(2 * DAY_MS);
    await trigger(checkId);
    const [older, newer] = (await keysOf(checkId)).map((run) => run.payload_key);
    if (!older || !newer) throw new Error('two runs expected');
    expect(older).not.toBe(newer);

    // The cutoff one day after the older run's day: its day is not a full day behind the cutoff yet.
    const olderDay = Date.parse(older.slice(0, 10));
    const limits = (cutoff: number) => ({
      cutoff: new Date(cutoff),
      rollupCutoff: new Date(0),
      dataDir: server.server.context.config.dataDir,
    });
    await pruneExpired(db(), limits(olderDay + DAY_MS));
    expect((await storedPayloads([older, newer])).map((row) => row.key).sort()).toEqual(
      [newer, older].sort(),
    );

    const pruned = await pruneExpired(db(), limits(olderDay + 2 * DAY_MS));
    expect(pruned.payloads).toBeGreaterThanOrEqual(1);
    expect((await storedPayloads([older, newer])).map((row) => row.key)).toEqual([newer]);
  });
});
