import type { Migration } from './index.js';

/** Code bundles (.tar.gz of Playwright projects) uploaded through the API; their bytes live in the data folder. */
export const codeBundles: Migration = {
  name: '030-code-bundles',
  sql: `
CREATE TABLE code_bundles (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  size bigint NOT NULL,
  sha256 text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX code_bundles_account ON code_bundles (account_id);
`,
};
