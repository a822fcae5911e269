/**
 * The VACUUMs of a PGlite store (issue 14), which PGlite runs on the server's one thread: the server's own, as
 * autovacuum would (src/server/store/vacuum.ts), and the retention prune's. This fills a migrated PGlite store with N
 * runs as the queue writes them (a run inserted queued, leased, finished; its session started and stopped; its result
 * inserted; its results in day partitions), spread over 31 days, 10,000 at a time, with the server's upkeep after
 * each batch as its sweep would run it along the way; then it runs the server's own prune
 * (src/server/retention/prune.ts) for the first day, and again
 * for the next 10 minutes as the retention loop would. Prints each VACUUM's time and the event loop's longest stall.
 * A VACUUM is one statement, a stall nothing can cut short, and reads every page no VACUUM saw before and every index
 * entry: the longest VACUUM per million runs stored, extrapolated linearly to 30 days at 30 runs/s (77.8 million
 * runs), is what a store of that size would wait. (The prune's deletes go in batches, and the event loop turns after
 * each of its statements.)
 * Goal: that extrapolated VACUUM ≤ 1 s. It also prints the VACUUM at the size past which the server warns that
 * the store holds more runs than PGlite suits.
 * Run: npx tsx bench/pglite-vacuum.ts   (BENCH_RUNS, default 200,000)
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureResultPartitions } from '../src/server/retention/partitions.js';
import { pruneExpired } from '../src/server/retention/prune.js';
import { PGLITE_ADVISED_RUNS } from '../src/server/retention/store-size.js';
import type { Db } from '../src/server/store/db.js';
import { migrate } from '../src/server/store/migrate.js';
import { vacuumTablesDue } from '../src/server/store/vacuum.js';
import { storeFinishedRuns, watchingVacuums } from '../test/support/finished-runs.js';
import { openFreshStore } from '../test/support/server.js';
import { flushStatistics } from '../test/support/statistics.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 200_000);
const DAY_MS = 86_400_000;
const DAYS = 31;
/**
 * The store's first day: tomorrow, after the partition of results the store began with (migration 220), so that
 * each day's results go to a day partition, as they do once the retention job has run for a day.
 */
const START = Math.floor(Date.now() / DAY_MS) * DAY_MS + DAY_MS;
const MONTH_AT_30_PER_S = 30 * 86_400 * 30;

/**
 * The event loop's longest stall: the longest gap between two turns of a 5-ms timer, less its 5 ms. (A prune
 * that never yields is one stall; monitorEventLoopDelay would see nothing of it, its timer never firing during.)
 */
function stallMeter(): { stop(): Promise<number> } {
  let last = performance.now();
  let longest = 0;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last - 5);
    last = now;
  };
  const timer = setInterval(tick, 5);
  return {
    async stop() {
      await sleep(20);
      clearInterval(timer);
      return Math.max(0, longest);
    },
  };
}

/** The artifacts' folder the prune is given: none of these runs has artifacts. */
const NO_ARTIFACTS = join(tmpdir(), 'vantage-vacuum-no-artifacts');

async function prune(db: Db, cutoffMs: number): Promise<{ vacuumMs: number; line: string }> {
  const vacuums: { table: string; ms: number }[] = [];
  const stall = stallMeter();
  const started = performance.now();
  const watched = watchingVacuums(db, (table, ms) => vacuums.push({ table, ms }));
  const pruned = await pruneExpired(watched, {
    cutoff: new Date(cutoffMs),
    rollupCutoff: new Date(0),
    dataDir: NO_ARTIFACTS,
  });
  const wallMs = performance.now() - started;
  const stallMs = await stall.stop();
  const each = vacuums.map(({ table, ms }) => `${table} ${ms.toFixed(0)} ms`).join(', ');
  const line = `${pruned.runs} runs, ${pruned.results} results, ${pruned.sessions} sessions deleted in ${wallMs.toFixed(0)} ms; VACUUM ${each}; longest stall ${stallMs.toFixed(0)} ms`;
  return { vacuumMs: Math.max(0, ...vacuums.map(({ ms }) => ms)), line };
}

const { db, drop } = await openFreshStore('pglite');
try {
  await migrate(db);
  // The retention job makes each day's partition of results days ahead (src/server/retention/partitions.ts).
  for (let day = 0; day < DAYS; day += 1) await ensureResultPartitions(db, new Date(START + day * DAY_MS));
  const filling = performance.now();
  const upkeep: { table: string; ms: number }[] = [];
  const watched = watchingVacuums(db, (table, ms) => upkeep.push({ table, ms }));
  await storeFinishedRuns(db, {
    runs: RUNS,
    fromMs: START,
    days: DAYS,
    afterBatch: async () => {
      await flushStatistics(db);
      await vacuumTablesDue(watched);
    },
  });
  // As the server keeps its planner current (src/server/store/analyze.ts).
  await db.exec('ANALYZE');
  const longest = upkeep.reduce((a, b) => (b.ms > a.ms ? b : a), { table: '-', ms: 0 });
  console.log(
    `${RUNS} runs stored over ${DAYS} days in ${((performance.now() - filling) / 1000).toFixed(0)} s; the upkeep's ${upkeep.length} VACUUMs along the way took ${upkeep.reduce((sum, v) => sum + v.ms, 0).toFixed(0)} ms, the longest ${longest.ms.toFixed(0)} ms (${longest.table})`,
  );
  const first = await prune(db, START + DAY_MS);
  console.log(`first prune (a day): ${first.line}`);
  const next = await prune(db, START + DAY_MS + 600_000);
  console.log(`next prune (10 minutes later): ${next.line}`);
  const perMillion = (Math.max(first.vacuumMs, longest.ms) * 1e6) / RUNS;
  const atMonth = (perMillion * MONTH_AT_30_PER_S) / 1e6;
  console.log(
    `longest VACUUM (upkeep or prune): ${perMillion.toFixed(0)} ms per million runs stored; ${(atMonth / 1000).toFixed(0)} s for 30 days at 30 runs/s (${(MONTH_AT_30_PER_S / 1e6).toFixed(1)} million runs)`,
  );
  console.log(
    `at the size past which the server warns (${(PGLITE_ADVISED_RUNS / 1e6).toFixed(0)} million runs, src/server/retention/store-size.ts): ${((perMillion * PGLITE_ADVISED_RUNS) / 1e9).toFixed(1)} s`,
  );
  const met = atMonth <= 1000;
  console.log(`${met ? '✓' : '✗'} the longest VACUUM at 30 days of 30 runs/s ≤ 1 s`);
  process.exitCode = met ? 0 : 1;
} finally {
  await drop();
}
