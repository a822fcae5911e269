import type { Migration } from './index.js';

/**
 * No foreign key checked on the rows every run writes (issue 14): each check costs about 17 µs of CPU per row on
 * PGlite, and the key of a session on its account locks the account's one row in share mode for every session,
 * as the key migration 140 dropped from `runs` did. Dropped: `runs.session_id` and `check_results.session_id`
 * (on PostgreSQL with every results partition's) on `check_sessions`, and `check_sessions.account_id` on
 * `accounts`. What they guarded the code keeps: a session is made in the transaction that makes its runs, a
 * result is stored only for a run it claims, retention removes children before parents (src/server/retention/
 * prune.ts), and nothing deletes an account. A session's key on its test session stays: it is written once per
 * test session's check, not per run.
 */
export const sessionKeys: Migration = {
  name: '180-session-keys',
  sql: `
DO $$
DECLARE
  k record;
BEGIN
  FOR k IN
    SELECT conrelid::regclass AS tbl, conname
      FROM pg_constraint
     WHERE contype = 'f' AND conparentid = 0
       AND (confrelid = 'check_sessions'::regclass
            OR (conrelid = 'check_sessions'::regclass AND confrelid = 'accounts'::regclass))
  LOOP
    EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', k.tbl, k.conname);
  END LOOP;
END
$$;
`,
};
