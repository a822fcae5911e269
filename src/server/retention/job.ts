import type { Db } from '../store/db.js';
import { ensureResultPartitions } from './partitions.js';
import { DAY_MS, periodStart, thirteenMonthsBefore } from './periods.js';
import { type Pruned, pruneExpired } from './prune.js';
import { rolledUpUntil, rollUpClosedHours } from './rollups.js';
import { pgliteRunsAboveAdvised } from './store-size.js';

export interface RetentionSettings {
  /** VANTAGE_RESULT_RETENTION_DAYS. */
  retentionDays: number;
  /** The data folder whose `artifacts/` holds the files of runs. */
  dataDir: string;
  /** Runs a PGlite store suits (PGLITE_ADVISED_RUNS, src/server/retention/store-size.ts, in a server). */
  pgliteAdvisedRuns: number;
}

export interface RetentionOutcome {
  partitionsMade: number;
  hoursRolledUp: number;
  /** Results from before this were removed. */
  cutoff: Date;
  pruned: Pruned;
  /** The runs a PGlite store holds once the prune is done, when more than it suits; else null. */
  pgliteRunsAboveAdvised: number | null;
}

/**
 * One run of the retention job, on any replica at any time: partitions made ahead, closed hours rolled
 * up, then whatever is past its retention removed. Raw results go only once rolled up: the cutoff is the start of
 * the UTC day `retentionDays` before now, or of the day rollups have reached when they lag behind.
 */
export async function runRetention(
  db: Db,
  now: Date,
  settings: RetentionSettings,
): Promise<RetentionOutcome> {
  const partitionsMade = await ensureResultPartitions(db, now);
  const hoursRolledUp = await rollUpClosedHours(db, now);
  const retained = now.getTime() - settings.retentionDays * DAY_MS;
  const rolledUp = (await rolledUpUntil(db))?.getTime() ?? retained;
  const cutoff = periodStart(new Date(Math.min(retained, rolledUp)), DAY_MS);
  const pruned = await pruneExpired(db, {
    cutoff,
    rollupCutoff: thirteenMonthsBefore(now),
    dataDir: settings.dataDir,
  });
  return {
    partitionsMade,
    hoursRolledUp,
    cutoff,
    pruned,
    pgliteRunsAboveAdvised: await pgliteRunsAboveAdvised(db, settings.pgliteAdvisedRuns),
  };
}
