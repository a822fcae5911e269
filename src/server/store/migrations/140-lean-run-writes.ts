import type { Migration } from './index.js';

/**
 * Less work in the store for each run (issue 14, measured with pg_stat_statements): every run is inserted,
 * leased, given its result and ended, and each of those writes a new row version into every index of `runs` and,
 * for the key of `account_id`, locks the account's one row in share mode (so concurrent transactions build
 * multixacts on it).
 * - `runs_queue` indexed every run ever made by its status; the queue's readers use `runs_lease_order`, which
 *   holds queued runs only.
 * - A run's account is its session's (`runs.session_id` keeps its key, and deleting a session still deletes its
 *   runs): the second key on the account was redundant.
 * - A result's record and a run's payload are a few kilobytes of JSON, compressed when stored and decompressed
 *   when read: lz4 costs a fraction of the default pglz. A server built without lz4 (PGlite) keeps pglz.
 */
export const leanRunWrites: Migration = {
  name: '140-lean-run-writes',
  sql: `
DROP INDEX IF EXISTS runs_queue;
ALTER TABLE runs DROP CONSTRAINT IF EXISTS runs_account_id_fkey;
DO $$
BEGIN
  ALTER TABLE check_results ALTER COLUMN record SET COMPRESSION lz4;
  ALTER TABLE runs ALTER COLUMN payload SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  NULL;
END
$$;
`,
};
