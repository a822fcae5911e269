import type { AlertChannelDocument } from '../alerts/channel-schema.js';
import { alertChannelStore } from '../alerts/channels.js';
import { checkAlertChannels } from '../alerts/check-view.js';
import { maskVariables } from '../common/merge.js';
import { pingTokensByCheck } from '../heartbeats/tokens.js';
import type { Db } from '../store/db.js';
import type { StoredResource } from '../store/resources.js';
import type { StoredCheck } from './repository.js';

/** What rendering checks of one account needs, loaded once per request. */
export interface CheckView {
  channels: Map<number, StoredResource<AlertChannelDocument>>;
  pingTokens: Map<string, string>;
}

export async function loadCheckView(db: Db, accountId: string): Promise<CheckView> {
  const channels = await alertChannelStore(db).list(accountId);
  return {
    channels: new Map(channels.map((c) => [Number(c.id), c])),
    pingTokens: await pingTokensByCheck(db, accountId),
  };
}

/** The spec's full check response: the stored check with its id, type, times and alert channels. */
export function checkResponse(stored: StoredCheck, view: CheckView): Record<string, unknown> {
  const { id: _id, checkType: _type, ...definition } = stored.definition;
  const response: Record<string, unknown> = {
    id: stored.id,
    checkType: stored.checkType,
    ...definition,
    groupId: definition.groupId ?? null,
    environmentVariables: maskVariables(definition.environmentVariables),
    created_at: stored.created_at,
    updated_at: stored.updated_at,
    alertChannels: checkAlertChannels(definition.alertChannelSubscriptions, view.channels),
  };
  if (stored.checkType === 'HEARTBEAT') {
    response.heartbeat = {
      ...(response.heartbeat as object),
      pingToken: view.pingTokens.get(stored.id) ?? '',
    };
  }
  return response;
}
