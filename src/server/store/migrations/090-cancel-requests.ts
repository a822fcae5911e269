import type { Migration } from './index.js';

/**
 * The runs whose cancel was asked for and that an agent still holds (src/server/queue/cancel.ts, read by every
 * replica every few seconds): without it each read scanned the whole runs table, which grows with every run.
 */
export const cancelRequests: Migration = {
  name: '090-cancel-requests',
  sql: `
CREATE INDEX runs_cancel_requested ON runs (agent_id) WHERE status = 'leased' AND cancel_requested_at IS NOT NULL;
`,
};
