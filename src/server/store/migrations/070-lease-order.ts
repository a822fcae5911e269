import type { Migration } from './index.js';

/**
 * The order agents lease in (src/server/queue/lease.ts: a location's queued runs of one slot class, oldest
 * scheduled first): with it a lease walks the index and stops after the runs it takes, where `runs_queue` made it
 * read and sort every queued run of the location, so a backlog made each lease slower and the backlog longer.
 */
export const leaseOrder: Migration = {
  name: '070-lease-order',
  sql: `
CREATE INDEX runs_lease_order ON runs (account_id, location, slot_class, scheduled_at, id) WHERE status = 'queued';
`,
};
