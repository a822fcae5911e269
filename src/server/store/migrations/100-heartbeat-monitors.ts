import type { Migration } from './index.js';

/**
 * One row per heartbeat check: when it fails unless a ping comes first (docs/heartbeats.md). Every replica's
 * overdue loop claims due rows with FOR UPDATE SKIP LOCKED and moves them on in the transaction that records the
 * failure, so a missed ping is recorded once, whatever the number of replicas and restarts.
 *
 * Existing heartbeat checks get their rows here, due one period and grace from now: their last ping is not known to
 * have been on time, so they get a whole window.
 */
export const heartbeatMonitors: Migration = {
  name: '100-heartbeat-monitors',
  sql: `
CREATE TABLE heartbeat_monitors (
  check_id text PRIMARY KEY REFERENCES checks(id) ON DELETE CASCADE,
  account_id text NOT NULL,
  period_ms bigint NOT NULL CHECK (period_ms > 0),
  grace_ms bigint NOT NULL CHECK (grace_ms >= 0),
  -- The start of the current wait: the last ping, or the check's creation, activation or schedule change.
  since timestamptz NOT NULL,
  -- since + period + grace; after a missed period, the end of the next one.
  due_at timestamptz NOT NULL,
  last_ping_at timestamptz,
  state text NOT NULL CHECK (state IN ('PASSING', 'FAILING')),
  -- The check and its group are activated: false keeps the row without failing it.
  active boolean NOT NULL
);
CREATE INDEX heartbeat_monitors_due ON heartbeat_monitors (due_at) WHERE active;

WITH stored AS (
  SELECT c.id, c.account_id,
         c.activated AND coalesce(g.definition->'activated', 'true'::jsonb) <> 'false'::jsonb AS active,
         c.definition->'heartbeat' AS h
    FROM checks c LEFT JOIN check_groups g ON g.id = c.group_id AND g.account_id = c.account_id
   WHERE c.check_type = 'HEARTBEAT' AND jsonb_typeof(c.definition->'heartbeat') = 'object'
), unit AS (
  SELECT id, account_id, active,
         (h->>'period')::bigint * CASE h->>'periodUnit' WHEN 'seconds' THEN 1000 WHEN 'minutes' THEN 60000
           WHEN 'hours' THEN 3600000 ELSE 86400000 END AS period_ms,
         (h->>'grace')::bigint * CASE h->>'graceUnit' WHEN 'seconds' THEN 1000 WHEN 'minutes' THEN 60000
           WHEN 'hours' THEN 3600000 ELSE 86400000 END AS grace_ms
    FROM stored
)
INSERT INTO heartbeat_monitors (check_id, account_id, period_ms, grace_ms, since, due_at, state, active)
SELECT id, account_id, period_ms, grace_ms, now(),
       now() + interval '1 millisecond' * (period_ms + grace_ms), 'PASSING', active
  FROM unit;
`,
};
