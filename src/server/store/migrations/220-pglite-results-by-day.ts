import type { Migration } from './index.js';
import { resultsByDaySql } from './results-by-day.js';

/**
 * PGlite's `check_results` partitioned by day, as PostgreSQL's has been since migration 050, so that the retention
 * prune drops a day whole on both stores. On PGlite a prune deleted a day's rows and then vacuumed the table, one
 * statement on the server's one thread that read every index entry of every result kept (the longest stall of a
 * prune); a dropped partition's file is emptied, its disk space returned. The index of results by time that
 * migration 050 made on PGlite stays on the first partition, under a name of its own: the partitioned table's has
 * its name.
 */
export const pgliteResultsByDay: Migration = {
  name: '220-pglite-results-by-day',
  sql: '',
  pglite: `
ALTER INDEX check_results_time RENAME TO check_results_before_time;
${resultsByDaySql({ sessionKey: false })}`,
};
