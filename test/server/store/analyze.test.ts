import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { calmPassingStates } from '../../../src/server/alerts/state-store.js';
import { analyzeChangedTables } from '../../../src/server/store/analyze.js';
import type { Db } from '../../../src/server/store/db.js';
import { migrate } from '../../../src/server/store/migrate.js';
import { openFreshStore, STORES } from '../../support/server.js';

/** The table's whole-table reads so far, once this session's counts reached the statistics. */
async function seqScansOf(db: Db, table: string): Promise<number> {
  await db.query('SELECT pg_stat_force_next_flush()');
  const [row] = await db.query<{ n: number }>(
    'SELECT seq_scan::int AS n FROM pg_stat_user_tables WHERE relname = $1',
    [table],
  );
  return row?.n ?? 0;
}

async function lastAnalyzed(db: Db, table: string): Promise<Date | null> {
  await db.query('SELECT pg_stat_force_next_flush()');
  const [row] = await db.query<{ at: Date | null }>(
    'SELECT last_analyze AS at FROM pg_stat_user_tables WHERE relname = $1',
    [table],
  );
  return row?.at ?? null;
}

// PGlite has no autovacuum; the server analyzes its changed tables once a minute (src/server/store/analyze.ts).
describe.each(STORES)('tables analyzed as they change (%s)', (store) => {
  let db: Db;
  let drop: () => Promise<void>;

  beforeEach(async () => {
    ({ db, drop } = await openFreshStore(store));
    await db.exec('CREATE TABLE marks (id text PRIMARY KEY, v int NOT NULL)');
  });

  afterEach(async () => {
    await drop();
  });

  const grow = (from: number, to: number) =>
    db.query(`INSERT INTO marks SELECT 'm' || g, g FROM generate_series($1::int, $2::int) g`, [from, to]);

  it.runIf(store === 'pglite')(
    'analyzes a table once a tenth of it changed since, and not before',
    async () => {
      await grow(1, 10_000);
      await seqScansOf(db, 'marks');
      expect(await analyzeChangedTables(db)).toContain('public.marks');
      const first = await lastAnalyzed(db, 'marks');
      expect(first).not.toBeNull();
      await grow(10_001, 10_500);
      await seqScansOf(db, 'marks');
      expect(await analyzeChangedTables(db)).not.toContain('public.marks');
      await grow(10_501, 11_700);
      await seqScansOf(db, 'marks');
      expect(await analyzeChangedTables(db)).toContain('public.marks');
      expect((await lastAnalyzed(db, 'marks'))?.getTime()).toBeGreaterThanOrEqual(first?.getTime() ?? 0);
    },
  );

  it.runIf(store === 'pglite')(
    'makes the plans of prepared statements again once their table grew and was analyzed',
    async () => {
      await migrate(db);
      await db.query("INSERT INTO accounts (id, name) VALUES ('acc', 'Acme')");
      const customPlans = async () => {
        const [row] = await db.query<{ n: number }>(
          "SELECT custom_plans::int AS n FROM pg_prepared_statements WHERE statement LIKE 'SELECT check_id, ssl_alerted_at%'",
        );
        return row?.n ?? 0;
      };
      const ids = Array.from({ length: 60 }, (_, i) => `chk${i * 37 + 1}`);
      // Prepared from its second run, planned for its values five times, then on one plan made while the table
      // was empty (as at a store's first start).
      for (let i = 0; i < 10; i++) expect((await calmPassingStates(db, 'acc', ids)).size).toBe(0);
      await db.query(
        "INSERT INTO alert_states (account_id, check_id) SELECT 'acc', 'chk' || g FROM generate_series(1, 3000) g",
      );
      const planned = await customPlans();
      expect((await calmPassingStates(db, 'acc', ids)).size).toBe(60);
      expect(await customPlans()).toBe(planned);
      await seqScansOf(db, 'alert_states');
      expect(await analyzeChangedTables(db)).toContain('public.alert_states');
      expect((await calmPassingStates(db, 'acc', ids)).size).toBe(60);
      expect(await customPlans()).toBeGreaterThan(planned);
    },
  );

  it.runIf(store === 'postgres')('leaves PostgreSQL to its autovacuum', async () => {
    await grow(1, 10_000);
    expect(await analyzeChangedTables(db)).toEqual([]);
  });
});
