import type { Migration } from './index.js';

/**
 * What the run queue, sessions and the agent gateway need beyond 001: lease bookkeeping and cancel requests on
 * runs, the status and location of each result, the connection an agent row belongs to, test-session options,
 * private-location proxies and stored artifacts.
 */
export const runs: Migration = {
  name: '020-runs',
  sql: `
ALTER TABLE runs ADD COLUMN lease_losses integer NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN cancel_requested_at timestamptz;
-- When this run's retry chain started (its session's start): a retry's maxDurationSeconds counts from there.
ALTER TABLE runs ADD COLUMN chain_started_at timestamptz;
CREATE INDEX runs_session ON runs (session_id);
CREATE INDEX runs_leased ON runs (lease_expires_at) WHERE status = 'leased';
CREATE INDEX runs_queued_expiry ON runs (expires_at) WHERE status = 'queued';

ALTER TABLE check_results ADD COLUMN status text NOT NULL DEFAULT 'PASSED';
ALTER TABLE check_results ADD COLUMN location text NOT NULL DEFAULT '';

CREATE INDEX check_sessions_test_session ON check_sessions (test_session_id);

ALTER TABLE test_sessions ADD COLUMN refresh boolean NOT NULL DEFAULT false;

ALTER TABLE agents ADD COLUMN connection_id text;
ALTER TABLE agents ADD COLUMN key_id text;
ALTER TABLE agents ADD COLUMN platform text NOT NULL DEFAULT '';
ALTER TABLE agents ADD COLUMN node_version text NOT NULL DEFAULT '';

ALTER TABLE private_locations ADD COLUMN proxy_url text;

CREATE INDEX agent_errors_location ON agent_errors (private_location_id, created_at DESC);

CREATE TABLE artifacts (
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  run_id text NOT NULL,
  name text NOT NULL,
  content_type text NOT NULL,
  size bigint NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, name)
);
`,
};
