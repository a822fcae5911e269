import type { Migration } from './index.js';

/**
 * A run's payload (the check as it was, its variables and certificates) kept once per check and day instead of in
 * every run's row (src/server/queue/payloads.ts): a run's row is written three times, and the payload was most of
 * it. Runs made before keep theirs in `runs.payload`.
 */
export const runPayloads: Migration = {
  name: '170-run-payloads',
  sql: `
CREATE TABLE run_payloads (
  key text PRIMARY KEY,
  payload jsonb NOT NULL
);
ALTER TABLE runs ALTER COLUMN payload DROP NOT NULL;
ALTER TABLE runs ADD COLUMN payload_key text;
DO $$
BEGIN
  ALTER TABLE run_payloads ALTER COLUMN payload SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  NULL;
END
$$;
`,
};
