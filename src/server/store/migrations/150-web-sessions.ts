import type { Migration } from './index.js';

/**
 * Sessions of the web app (docs/web-app.md, Signing in): an API key exchanged for a cookie. A row is found by the
 * SHA-256 of the cookie's token, so the store never holds a token that would open a session; revoking or deleting
 * the key ends its sessions.
 */
export const webSessions: Migration = {
  name: '150-web-sessions',
  sql: `
CREATE TABLE web_sessions (
  id_hash text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  key_id text NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
  csrf_token text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL
);
CREATE INDEX web_sessions_expiry ON web_sessions (expires_at);
`,
};
