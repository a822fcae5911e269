import { describe, expect, it } from 'vitest';
import { leaseRuns } from '../../../src/server/queue/lease.js';
import type { Db } from '../../../src/server/store/db.js';
import { migrate } from '../../../src/server/store/migrate.js';
import { DEAD_SHARE, INSERTED_SHARE, vacuumTablesDue } from '../../../src/server/store/vacuum.js';
import { freshStoreForEachTest } from '../../support/fresh-store.js';
import { STORES, type Store } from '../../support/server.js';
import { flushStatistics } from '../../support/statistics.js';

function freshStore(store: Store) {
  const context = { db: undefined as unknown as Db };
  freshStoreForEachTest(store, (db) => {
    context.db = db;
  });
  return context;
}

const ACCOUNT = 'acc';
const LOCATION = 'loc';

/** `count` runs (numbered from `first`) through the queue as the server moves them: queued, leased, ended. */
async function runThroughTheQueue(db: Db, first: number, count: number): Promise<void> {
  const start = Date.now() - 600_000;
  await db.query(
    `INSERT INTO runs (id, account_id, session_id, check_id, location, slot_class, check_type, status, scheduled_at,
                       not_before, expires_at, payload)
     SELECT 'run' || g, $1, 'ses' || g, 'chk', $2, 'light', 'API', 'queued', to_timestamp($3 + g * 0.01),
            to_timestamp($3 + g * 0.01), now() + interval '1 hour', '{}'::jsonb
       FROM generate_series($4::int, $5::int) g`,
    [ACCOUNT, LOCATION, start / 1000, first, first + count - 1],
  );
  for (;;) {
    const leased = await leaseRuns(db, {
      accountId: ACCOUNT,
      location: LOCATION,
      agentId: 'agent',
      credits: { light: 500, browser: 0 },
      kinds: ['API'],
      now: new Date(),
      leaseTtlMs: 45_000,
    });
    if (leased.length === 0) return;
    await db.query(
      `UPDATE runs SET status = 'done', finished_at = now(), lease_expires_at = NULL WHERE id = ANY($1::text[])`,
      [leased.map((run) => run.id)],
    );
  }
}

/** The index pages a lease's pick reads before it finds the first queued run (or learns there is none). */
async function pagesALeaseReads(db: Db): Promise<number> {
  const plan = await db.query<{ 'QUERY PLAN': string }>(
    `EXPLAIN (ANALYZE, BUFFERS, FORMAT TEXT) SELECT id FROM runs
      WHERE account_id = '${ACCOUNT}' AND location = '${LOCATION}' AND status = 'queued' AND slot_class = 'light'
        AND scheduled_at <= now()
      ORDER BY scheduled_at, id LIMIT 10`,
  );
  const text = plan.map((line) => line['QUERY PLAN']).join('\n');
  expect(text).toContain('runs_lease_order');
  return Number(/Buffers: shared hit=(\d+)/.exec(text)?.[1] ?? Number.NaN);
}

// PGlite has no autovacuum; the server vacuums its tables (src/server/store/vacuum.ts).
describe('tables vacuumed as their rows die (pglite)', () => {
  const store = freshStore('pglite');

  it('vacuums a table once a twentieth of its rows are dead, and not before', async () => {
    const { db } = store;
    // Indexed as the queue's columns are: an update leaves a dead row version that an index points to.
    await db.exec(
      'CREATE TABLE marks (id text PRIMARY KEY, v int NOT NULL); CREATE INDEX marks_v ON marks (v)',
    );
    await db.query(`INSERT INTO marks SELECT 'm' || g, g FROM generate_series(1, 10000) g`);
    await flushStatistics(db);
    await db.exec('VACUUM marks');
    const threshold = 50 + DEAD_SHARE * 10_000;
    const rewrite = (from: number, to: number) =>
      db.query(
        `UPDATE marks SET v = v + 1 WHERE id IN (SELECT 'm' || g FROM generate_series($1::int, $2::int) g)`,
        [from, to],
      );
    await rewrite(1, threshold - 100);
    await flushStatistics(db);
    expect(await vacuumTablesDue(db)).not.toContain('public.marks');
    await rewrite(threshold - 99, threshold + 100);
    await flushStatistics(db);
    expect(await vacuumTablesDue(db)).toContain('public.marks');
    await flushStatistics(db);
    const [row] = await db.query<{ dead: number }>(
      "SELECT n_dead_tup::int AS dead FROM pg_stat_user_tables WHERE relname = 'marks'",
    );
    expect(row?.dead).toBe(0);
  });

  it('vacuums a table that only grows once a fifth of it is new, and not before', async () => {
    const { db } = store;
    await db.exec('CREATE TABLE marks (id text PRIMARY KEY, v int NOT NULL)');
    const grow = (from: number, to: number) =>
      db.query(`INSERT INTO marks SELECT 'm' || g, g FROM generate_series($1::int, $2::int) g`, [from, to]);
    await grow(1, 10_000);
    await flushStatistics(db);
    await db.exec('VACUUM marks');
    const threshold = 1000 + INSERTED_SHARE * 10_000;
    await grow(10_001, 10_000 + threshold - 100);
    await flushStatistics(db);
    expect(await vacuumTablesDue(db)).not.toContain('public.marks');
    await grow(10_000 + threshold - 99, 10_000 + threshold + 100);
    await flushStatistics(db);
    expect(await vacuumTablesDue(db)).toContain('public.marks');
  });

  it("keeps the queue's index free of the runs that left it, so that a lease reads a few pages", async () => {
    const { db } = store;
    await migrate(db);
    await runThroughTheQueue(db, 0, 20_000);
    await flushStatistics(db);
    // Every run that ever waited in the queue left a dead entry where a lease starts reading.
    expect(await pagesALeaseReads(db)).toBeGreaterThan(100);
    expect(await vacuumTablesDue(db)).toContain('public.runs');
    expect(await pagesALeaseReads(db)).toBeLessThan(10);
    // And again for the runs after: the entries of the runs that left since are dropped as well.
    await runThroughTheQueue(db, 20_000, 3_000);
    await flushStatistics(db);
    expect(await pagesALeaseReads(db)).toBeGreaterThan(20);
    expect(await vacuumTablesDue(db)).toContain('public.runs');
    expect(await pagesALeaseReads(db)).toBeLessThan(10);
  });
});

describe.runIf(STORES.includes('postgres'))('tables vacuumed as their rows die (postgres)', () => {
  const store = freshStore('postgres');

  it('has autovacuum visit the runs at the share PGlite is vacuumed at', async () => {
    const { db } = store;
    await migrate(db);
    const [row] = await db.query<{ options: string[] }>(
      "SELECT reloptions AS options FROM pg_class WHERE oid = 'runs'::regclass",
    );
    expect(row?.options).toContain(`autovacuum_vacuum_scale_factor=${DEAD_SHARE}`);
  });

  it('leaves PostgreSQL to its autovacuum', async () => {
    const { db } = store;
    await db.exec('CREATE TABLE marks (id text PRIMARY KEY, v int NOT NULL)');
    await db.query(`INSERT INTO marks SELECT 'm' || g, g FROM generate_series(1, 1000) g`);
    await db.query('DELETE FROM marks');
    await flushStatistics(db);
    expect(await vacuumTablesDue(db)).toEqual([]);
  });
});
