import { describe, expect, it } from 'vitest';
import { calmPassingStates } from '../../../src/server/alerts/state-store.js';
import {
  ANALYZE_STATISTICS_TARGET,
  analyzeChangedTables,
  RESTATE_MINUTES,
} from '../../../src/server/store/analyze.js';
import type { Db } from '../../../src/server/store/db.js';
import { migrate } from '../../../src/server/store/migrate.js';
import { freshStoreForEachTest } from '../../support/fresh-store.js';
import { STORES, type Store } from '../../support/server.js';
import { flushStatistics } from '../../support/statistics.js';

async function lastAnalyzed(db: Db, table: string): Promise<Date | null> {
  await flushStatistics(db);
  const [row] = await db.query<{ at: Date | null }>(
    'SELECT last_analyze AS at FROM pg_stat_user_tables WHERE relname = $1',
    [table],
  );
  return row?.at ?? null;
}

/** A fresh store of this kind for each test, with an empty table `marks`, and a way to add rows to it. */
function storeWithMarks(store: Store) {
  const context = {
    db: undefined as unknown as Db,
    grow: (from: number, to: number) =>
      context.db.query(`INSERT INTO marks SELECT 'm' || g, g FROM generate_series($1::int, $2::int) g`, [
        from,
        to,
      ]),
  };
  freshStoreForEachTest(store, async (db) => {
    context.db = db;
    await db.exec('CREATE TABLE marks (id text PRIMARY KEY, v int NOT NULL)');
  });
  return context;
}

// PGlite has no autovacuum; the server analyzes its changed tables (src/server/store/analyze.ts).
describe('tables analyzed as they change (pglite)', () => {
  const marks = storeWithMarks('pglite');
  const grow = (from: number, to: number) => marks.grow(from, to);

  it('analyzes a table once a tenth of it changed since, and not before', async () => {
    await grow(1, 10_000);
    await flushStatistics(marks.db);
    expect(await analyzeChangedTables(marks.db)).toContain('public.marks');
    const first = await lastAnalyzed(marks.db, 'marks');
    expect(first).not.toBeNull();
    await grow(10_001, 10_500);
    await flushStatistics(marks.db);
    expect(await analyzeChangedTables(marks.db)).not.toContain('public.marks');
    await grow(10_501, 11_700);
    await flushStatistics(marks.db);
    expect(await analyzeChangedTables(marks.db)).toContain('public.marks');
    expect((await lastAnalyzed(marks.db, 'marks'))?.getTime()).toBeGreaterThanOrEqual(first?.getTime() ?? 0);
  });

  it('analyzes a table whose rows were rewritten but not added to only once its statistics are minutes old', async () => {
    await grow(1, 10_000);
    await flushStatistics(marks.db);
    expect(await analyzeChangedTables(marks.db)).toContain('public.marks');
    // Every row rewritten twice, as the scheduler rewrites its schedule rows: changes, but the same size.
    await marks.db.query('UPDATE marks SET v = v + 1');
    await marks.db.query('UPDATE marks SET v = v + 1');
    await flushStatistics(marks.db);
    expect(await analyzeChangedTables(marks.db)).not.toContain('public.marks');
    const later = new Date(Date.now() + (RESTATE_MINUTES + 1) * 60_000);
    expect(await analyzeChangedTables(marks.db, later)).toContain('public.marks');
  });

  it('analyzes a table that shrank by a tenth', async () => {
    await grow(1, 10_000);
    await flushStatistics(marks.db);
    expect(await analyzeChangedTables(marks.db)).toContain('public.marks');
    await marks.db.query('DELETE FROM marks WHERE v <= 1500');
    await flushStatistics(marks.db);
    expect(await analyzeChangedTables(marks.db)).toContain('public.marks');
  });

  it('reads a small sample, so that the event loop waits little, and leaves the statistics target as it was', async () => {
    await grow(1, 10_000);
    await flushStatistics(marks.db);
    expect(await analyzeChangedTables(marks.db)).toContain('public.marks');
    // At PostgreSQL's default target (100) the 10,000 distinct values would make 101 histogram bounds.
    const [stats] = await marks.db.query<{ bounds: number }>(
      "SELECT array_length(histogram_bounds::text::int[], 1) AS bounds FROM pg_stats WHERE tablename = 'marks' AND attname = 'v'",
    );
    expect(stats?.bounds).toBe(ANALYZE_STATISTICS_TARGET + 1);
    const [setting] = await marks.db.query<{ target: string }>(
      "SELECT current_setting('default_statistics_target') AS target",
    );
    expect(setting?.target).toBe('100');
  });

  it('makes the plans of prepared statements again once their table grew and was analyzed', async () => {
    await migrate(marks.db);
    await marks.db.query("INSERT INTO accounts (id, name) VALUES ('acc', 'Acme')");
    const customPlans = async () => {
      const [row] = await marks.db.query<{ n: number }>(
        "SELECT custom_plans::int AS n FROM pg_prepared_statements WHERE statement LIKE 'SELECT check_id, ssl_alerted_at%'",
      );
      return row?.n ?? 0;
    };
    const ids = Array.from({ length: 60 }, (_, i) => `chk${i * 37 + 1}`);
    // Prepared from its second run, planned for its values five times, then on one plan made while the table
    // was empty (as at a store's first start).
    for (let i = 0; i < 10; i++) expect((await calmPassingStates(marks.db, 'acc', ids)).size).toBe(0);
    await marks.db.query(
      "INSERT INTO alert_states (account_id, check_id) SELECT 'acc', 'chk' || g FROM generate_series(1, 3000) g",
    );
    const planned = await customPlans();
    expect((await calmPassingStates(marks.db, 'acc', ids)).size).toBe(60);
    expect(await customPlans()).toBe(planned);
    await flushStatistics(marks.db);
    expect(await analyzeChangedTables(marks.db)).toContain('public.alert_states');
    expect((await calmPassingStates(marks.db, 'acc', ids)).size).toBe(60);
    expect(await customPlans()).toBeGreaterThan(planned);
  });
});

describe.runIf(STORES.includes('postgres'))('tables analyzed as they change (postgres)', () => {
  const marks = storeWithMarks('postgres');

  it('leaves PostgreSQL to its autovacuum', async () => {
    await marks.grow(1, 10_000);
    expect(await analyzeChangedTables(marks.db)).toEqual([]);
  });
});
