import { createHash, randomBytes } from 'node:crypto';
import { formatLocationKey } from '../../protocol/index.js';

/** Keys are long random secrets, so a plain SHA-256 is a safe way to store and look them up. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function keyHint(key: string): string {
  return `…${key.slice(-4)}`;
}

function secret(): string {
  return randomBytes(24).toString('base64url');
}

export const USER_KEY_PREFIX = 'vk_';

export function newUserKey(): string {
  return `${USER_KEY_PREFIX}${secret()}`;
}

export function newLocationKey(accountId: string, location: string): string {
  return formatLocationKey({ accountId, location, secret: secret() });
}
