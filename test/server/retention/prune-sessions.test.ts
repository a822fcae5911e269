import { describe, expect, it } from 'vitest';
import { BATCH_ROWS, pruneExpired } from '../../../src/server/retention/prune.js';
import type { Db } from '../../../src/server/store/db.js';
import { migrate } from '../../../src/server/store/migrate.js';
import { storeFinishedRuns } from '../../support/finished-runs.js';
import { freshStoreForEachTest } from '../../support/fresh-store.js';
import { STORES } from '../../support/server.js';

const DAY_MS = 86_400_000;
const FROM = Date.parse('2030-01-01T00:00:00Z');
/** More sessions before the cutoff than one batch of the prune takes. */
const RUNS = 3 * BATCH_ROWS;

// Runs go with their stopped session (src/server/retention/prune.ts): no index of runs by the time they ended.
describe.each(STORES)('runs pruned with their session (%s)', (store) => {
  let db: Db;
  freshStoreForEachTest(store, async (fresh) => {
    db = fresh;
    await migrate(db);
    await storeFinishedRuns(db, { runs: RUNS, fromMs: FROM, days: 3 });
  });
  const count = async (sql: string) => Number((await db.query<{ n: string | number }>(sql))[0]?.n);
  const prune = () =>
    pruneExpired(db, {
      cutoff: new Date(FROM + 2 * DAY_MS),
      rollupCutoff: new Date(0),
      dataDir: '/nonexistent',
    });

  it('takes the sessions that stopped before the cutoff with their runs, over several batches', async () => {
    const before = await count("SELECT count(*) AS n FROM runs WHERE finished_at < '2030-01-03T00:00:00Z'");
    expect(before).toBeGreaterThan(BATCH_ROWS);
    const pruned = await prune();
    expect(pruned).toMatchObject({ runs: before, sessions: before, results: before });
    expect(await count('SELECT count(*) AS n FROM runs')).toBe(RUNS - before);
    expect(await count('SELECT count(*) AS n FROM check_sessions')).toBe(RUNS - before);
    expect(await count("SELECT count(*) AS n FROM runs WHERE finished_at < '2030-01-03T00:00:00Z'")).toBe(0);
    expect(await count("SELECT count(*) AS n FROM pg_class WHERE relname = 'runs_finished'")).toBe(0);
  });

  it('keeps a run still open, with its session, and a session still in progress, with its runs', async () => {
    // Neither happens (a session stops when its last run ends); if one did, the prune would not take the run.
    await db.query("UPDATE runs SET status = 'leased', finished_at = NULL WHERE id = 'run_7'");
    await db.query("UPDATE check_sessions SET status = 'IN_PROGRESS', stopped_at = NULL WHERE id = 'ses_8'");
    const pruned = await prune();
    const kept = await db.query<{ id: string }>(
      "SELECT id FROM runs WHERE id IN ('run_7', 'run_8', 'run_9') ORDER BY id",
    );
    expect(kept.map((r) => r.id)).toEqual(['run_7', 'run_8']);
    const sessions = await db.query<{ id: string }>(
      "SELECT id FROM check_sessions WHERE id IN ('ses_7', 'ses_8', 'ses_9') ORDER BY id",
    );
    expect(sessions.map((s) => s.id)).toEqual(['ses_7', 'ses_8']);
    expect(pruned.sessions).toBe(pruned.runs);
  });
});
