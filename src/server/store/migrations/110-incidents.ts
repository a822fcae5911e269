import type { Migration } from './index.js';

/**
 * Incidents of status-page services and their updates (docs/status-pages.md). An incident a check opened
 * (`triggerIncident`) names the check; at most one such incident per check and service is open at a time.
 */
export const incidents: Migration = {
  name: '110-incidents',
  sql: `
CREATE TABLE incidents (
  id text PRIMARY KEY,
  -- Orders incidents (and updates) made within one millisecond the way they were made.
  seq bigint GENERATED ALWAYS AS IDENTITY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  service_id text NOT NULL,
  name text NOT NULL,
  description text NOT NULL,
  severity text NOT NULL,
  status text NOT NULL,
  check_id text,
  notify_subscribers boolean NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  resolved_at timestamptz
);
CREATE INDEX incidents_service ON incidents (account_id, service_id, created_at DESC);
CREATE UNIQUE INDEX incidents_open_of_check ON incidents (account_id, check_id, service_id)
  WHERE check_id IS NOT NULL AND status <> 'RESOLVED';

CREATE TABLE incident_updates (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  incident_id text NOT NULL REFERENCES incidents(id) ON DELETE CASCADE,
  status text NOT NULL,
  description text NOT NULL,
  notify_subscribers boolean NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX incident_updates_incident ON incident_updates (incident_id, created_at);
`,
};
