import type { Migration } from './index.js';

/**
 * Fewer index entries for the rows every run writes (issue 14): each run inserted and rewrote 21 index entries on
 * PGlite. A session's test session is indexed only where it has one (a scheduled run's session has none, and its
 * insert and its end each wrote a null there). And PGlite's `check_results.run_id UNIQUE` goes: one result per run is
 * the run's rule since migration `050-retention` (`runs.result_id`, set once under the run's lock by the statement
 * that inserts the result), which PostgreSQL's partitioned results could never hold either, and no query looks a
 * result up by its run.
 */
export const leanRunIndexes: Migration = {
  name: '190-lean-run-indexes',
  sql: `
DROP INDEX check_sessions_test_session;
CREATE INDEX check_sessions_test_session ON check_sessions (test_session_id) WHERE test_session_id IS NOT NULL;
`,
  pglite: `ALTER TABLE check_results DROP CONSTRAINT IF EXISTS check_results_run_id_key;`,
};
