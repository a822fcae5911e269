import type { Migration } from './index.js';

/** Updates posted to one maintenance (an occurrence of a maintenance window): the spec's Maintenance `updates`. */
export const maintenanceUpdates: Migration = {
  name: '130-maintenance-updates',
  sql: `
CREATE TABLE maintenance_updates (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  window_id text NOT NULL,
  maintenance_id text NOT NULL,
  status text NOT NULL,
  previous_status text NOT NULL,
  description text NOT NULL,
  notify_subscribers boolean NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX maintenance_updates_of ON maintenance_updates (account_id, window_id, maintenance_id, created_at);
`,
};
