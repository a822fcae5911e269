import type { Migration } from './index.js';

/**
 * `runs_finished` goes: every run wrote an entry into it when it ended, only for the retention prune to find runs
 * by the time they ended. The prune now takes each stopped session with its runs (src/server/retention/prune.ts),
 * found by `runs_session`: one index entry less for every run, and one index of every run fewer for each VACUUM of
 * `runs` to read whole.
 */
export const runsBySession: Migration = {
  name: '210-runs-by-session',
  sql: 'DROP INDEX IF EXISTS runs_finished;',
};
