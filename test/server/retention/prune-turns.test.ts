import { setImmediate } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { pruneExpired } from '../../../src/server/retention/prune.js';
import type { Db } from '../../../src/server/store/db.js';
import { migrate } from '../../../src/server/store/migrate.js';
import { storeFinishedRuns, watchingVacuums } from '../../support/finished-runs.js';
import { freshStoreForEachTest } from '../../support/fresh-store.js';

const DAY_MS = 86_400_000;
const FROM = Date.parse('2030-01-01T00:00:00Z');

// On PGlite each statement holds the server's one thread: a prune must let requests and agents in between its
// statements, not only once it is done (bench/pglite-vacuum.ts measures the stalls).
describe('a prune on PGlite', () => {
  let db: Db;
  freshStoreForEachTest('pglite', async (fresh) => {
    db = fresh;
    await migrate(db);
    await storeFinishedRuns(db, { runs: 300, fromMs: FROM, days: 3 });
  });

  it('lets the event loop turn between its statements, its VACUUMs among them', async () => {
    const vacuums: number[] = [];
    let turns = 0;
    const counting = watchingVacuums(db, () => vacuums.push(turns));
    let done = false;
    const pruning = pruneExpired(counting, {
      cutoff: new Date(FROM + DAY_MS),
      rollupCutoff: new Date(0),
      dataDir: '/nonexistent',
    }).finally(() => {
      done = true;
    });
    while (!done) {
      await setImmediate();
      turns += 1;
    }
    const pruned = await pruning;
    expect(pruned).toMatchObject({ runs: 100, results: 100, sessions: 100 });
    // The results' default partition (no day partition was made), runs and check_sessions were vacuumed, each after
    // a turn the one before it did not hold.
    expect(vacuums).toHaveLength(3);
    expect(new Set(vacuums).size).toBe(3);
    expect(vacuums[0]).toBeGreaterThan(0);
  });
});
