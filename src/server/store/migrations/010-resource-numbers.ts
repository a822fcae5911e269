import type { Migration } from './index.js';

/**
 * Integer ids for resources kept in `resources` (alert channels, maintenance windows, triggers), and a lookup of
 * resources by kind and id alone, for the token routes that run before the account is known (heartbeat pings).
 */
export const resourceNumbers: Migration = {
  name: '010-resource-numbers',
  sql: `
CREATE SEQUENCE resource_numbers;
CREATE INDEX resources_kind_id ON resources (kind, id);
CREATE INDEX resources_account_kind_created ON resources (account_id, kind, created_at);
`,
};
