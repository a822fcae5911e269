import type { Db } from '../store/db.js';
import { ResourceStore, type StoredResource } from '../store/resources.js';
import type { AlertChannelDocument, Subscription } from './channel-schema.js';
import { maskedChannelConfig } from './channel-secrets.js';

export function alertChannelStore(db: Db): ResourceStore<AlertChannelDocument> {
  return new ResourceStore<AlertChannelDocument>(db, 'alert-channel');
}

/** The spec's Alert channel; the credentials of its config masked. */
export function alertChannelResponse(
  stored: StoredResource<AlertChannelDocument>,
  subscriptions: Subscription[],
) {
  return {
    id: Number(stored.id),
    ...stored.document,
    config: maskedChannelConfig(stored.document.type, stored.document.config),
    subscriptions,
    created_at: stored.created_at,
    updated_at: stored.updated_at,
  };
}

/** Ids among `ids` that are not alert channels of the account. */
export async function unknownAlertChannels(
  db: Db,
  accountId: string,
  ids: readonly number[],
): Promise<number[]> {
  if (ids.length === 0) return [];
  const known = new Set((await alertChannelStore(db).list(accountId)).map((c) => Number(c.id)));
  return ids.filter((id) => !known.has(id));
}
