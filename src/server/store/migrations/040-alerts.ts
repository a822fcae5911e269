import type { Migration } from './index.js';

/**
 * Alerting: one alert state per check, moved by its finished sessions, and the outbox of notifications written
 * with each state change and sent by any replica (docs/alerting.md).
 */
export const alerts: Migration = {
  name: '040-alerts',
  sql: `
CREATE TABLE alert_states (
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  check_id text NOT NULL,
  state text NOT NULL DEFAULT 'PASSING',
  -- Consecutive failed sessions, and when the first of them started (reset by a session that did not fail).
  failed_sessions integer NOT NULL DEFAULT 0,
  failing_since timestamptz,
  -- TIME_BASED escalation: when the failure becomes FAILING if no session passes before.
  escalate_at timestamptz,
  state_since timestamptz NOT NULL DEFAULT now(),
  -- One failure or degradation, from its start to its recovery: the dedup_key / alias of receivers.
  episode_id text,
  -- Whether this episode's failure or degradation was sent (a recovery is only sent for one that was).
  episode_sent boolean NOT NULL DEFAULT false,
  reminders_sent integer NOT NULL DEFAULT 0,
  next_reminder_at timestamptz,
  ssl_alerted_at timestamptz,
  -- The last counted session's template variables: what reminders and time-based escalations tell.
  last_variables jsonb,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, check_id)
);
CREATE INDEX alert_states_due_reminder ON alert_states (next_reminder_at) WHERE next_reminder_at IS NOT NULL;
CREATE INDEX alert_states_due_escalation ON alert_states (escalate_at) WHERE escalate_at IS NOT NULL;

-- status: PENDING → SENT | FAILED. A row is leased by pushing next_attempt_at past the send, so one replica sends it.
CREATE TABLE alert_notifications (
  id text PRIMARY KEY,
  -- The order notifications were written in (created_at ties within a transaction).
  seq bigint GENERATED ALWAYS AS IDENTITY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  check_id text NOT NULL,
  channel_id bigint NOT NULL,
  channel_type text NOT NULL,
  alert_type text NOT NULL,
  session_id text,
  episode_id text NOT NULL,
  variables jsonb NOT NULL,
  status text NOT NULL DEFAULT 'PENDING',
  attempts integer NOT NULL DEFAULT 0,
  attempt_log jsonb NOT NULL DEFAULT '[]',
  response_status integer,
  last_error text,
  next_attempt_at timestamptz NOT NULL,
  give_up_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  sent_at timestamptz
);
CREATE INDEX alert_notifications_due ON alert_notifications (next_attempt_at) WHERE status = 'PENDING';
CREATE INDEX alert_notifications_account ON alert_notifications (account_id, created_at DESC);
`,
};
