import type { Migration } from './index.js';
import { resultsByDaySql } from './results-by-day.js';

/**
 * Results kept for a retention period (src/server/retention/): what removing old rows by time needs, the
 * per-check rollups that outlive raw results, and on PostgreSQL `check_results` partitioned by day.
 *
 * One result per run was `check_results.run_id UNIQUE`; a partitioned table's unique keys must hold its partition
 * key, so the rule moves to the run: `runs.result_id` is set once (`WHERE result_id IS NULL`) in the statement that
 * inserts the result.
 */
export const retention: Migration = {
  name: '050-retention',
  sql: `
ALTER TABLE runs ADD COLUMN result_id text;
UPDATE runs SET result_id = r.id FROM check_results r WHERE r.run_id = runs.id;
CREATE INDEX runs_finished ON runs (finished_at) WHERE finished_at IS NOT NULL;
CREATE INDEX check_sessions_stopped ON check_sessions (stopped_at) WHERE stopped_at IS NOT NULL;
CREATE INDEX test_sessions_stopped ON test_sessions (stopped_at) WHERE stopped_at IS NOT NULL;

-- Milliseconds, as in the record: rollups read it without reading (and decompressing) the record. Null in rows
-- stored before this migration, whose record is read instead.
ALTER TABLE check_results ADD COLUMN response_time double precision;

-- Per check and location, an hour or a UTC day of FINAL results (src/server/retention/rollups.ts). Response times
-- are a histogram of logarithmic buckets: rt_keys[i] is a bucket (src/server/retention/histogram.ts) and
-- rt_counts[i] how many results fell in it.
CREATE TABLE check_rollups (
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  check_id text NOT NULL,
  location text NOT NULL,
  resolution text NOT NULL CHECK (resolution IN ('hour', 'day')),
  period_start timestamptz NOT NULL,
  count integer NOT NULL,
  failures integer NOT NULL,
  degraded integer NOT NULL,
  rt_keys smallint[] NOT NULL,
  rt_counts integer[] NOT NULL,
  PRIMARY KEY (account_id, check_id, resolution, period_start, location)
);
CREATE INDEX check_rollups_period ON check_rollups (resolution, period_start);

-- How far rollups are done: every hour before done_until is rolled up (one row, locked by the replica at work).
CREATE TABLE rollup_progress (
  name text PRIMARY KEY,
  done_until timestamptz NOT NULL
);
`,
  pglite: `
CREATE INDEX check_results_time ON check_results (created_at);
`,
  // The existing table becomes the first partition, without copying (results-by-day.ts).
  postgres: resultsByDaySql({ sessionKey: true }),
};
