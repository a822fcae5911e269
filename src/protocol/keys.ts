/**
 * A private-location key names its account and location, so an agent configured with the key alone can send the
 * account header and knows which location it serves: `pl_<accountId>.<locationSlug>.<secret>`.
 */
export interface LocationKeyParts {
  accountId: string;
  location: string;
  secret: string;
}

export const LOCATION_KEY_PREFIX = 'pl_';
const KEY_PATTERN = /^pl_([A-Za-z0-9-]{1,64})\.([a-z0-9][a-z0-9-]{0,62})\.([A-Za-z0-9_-]{16,128})$/;

export function parseLocationKey(key: string): LocationKeyParts | null {
  const match = KEY_PATTERN.exec(key.trim());
  if (!match) return null;
  const [, accountId = '', location = '', secret = ''] = match;
  return { accountId, location, secret };
}

export function formatLocationKey(parts: LocationKeyParts): string {
  return `${LOCATION_KEY_PREFIX}${parts.accountId}.${parts.location}.${parts.secret}`;
}
