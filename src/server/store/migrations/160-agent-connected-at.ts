import type { Migration } from './index.js';

/**
 * When each agent's current connection began (its last hello), for the list of a location's agents
 * (`GET /v1/private-locations/{id}/agents`); `first_seen` is when the agent was first heard from at all.
 */
export const agentConnectedAt: Migration = {
  name: '160-agent-connected-at',
  sql: `
ALTER TABLE agents ADD COLUMN connected_at timestamptz;
`,
};
