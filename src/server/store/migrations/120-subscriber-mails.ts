import type { Migration } from './index.js';

/**
 * The outbox of mail to status-page subscribers (docs/status-pages.md): a verification per new subscription, and a
 * mail per incident or update that notifies subscribers, written in the transaction that made it and composed when
 * sent. Any replica sends; a row is claimed with FOR UPDATE SKIP LOCKED, so each mail goes once.
 */
export const subscriberMails: Migration = {
  name: '120-subscriber-mails',
  sql: `
CREATE TABLE subscriber_mails (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  subscription_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('VERIFY', 'INCIDENT', 'MAINTENANCE')),
  incident_id text,
  update_id text,
  status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'SENT', 'FAILED', 'DROPPED')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  last_error text,
  created_at timestamptz NOT NULL
);
CREATE INDEX subscriber_mails_due ON subscriber_mails (next_attempt_at, seq) WHERE status = 'PENDING';
`,
};
