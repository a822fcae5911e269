import type { Db } from '../store/db.js';
import { jsonParam, toNumber } from '../store/rows.js';
import type { Subscription } from './channel-schema.js';
import { alertChannelStore } from './channels.js';

/**
 * Subscriptions live on their subscribers: `alertChannelSubscriptions` of checks and check groups, as in their
 * definitions. A channel's `subscriptions` are read from there, so there is one source of truth.
 */
export interface ChannelSubscription {
  alertChannelId: number;
  activated: boolean;
}

export type Subscriber = { checkId: string } | { groupId: number };

const SUBSCRIBER_TABLES = [
  { table: 'checks', toSubscriber: (id: unknown) => ({ checkId: String(id), groupId: null }) },
  { table: 'check_groups', toSubscriber: (id: unknown) => ({ checkId: null, groupId: toNumber(id) }) },
] as const;

/** Every subscription of an account, by channel id. */
export async function subscriptionsByChannel(
  db: Db,
  accountId: string,
): Promise<Map<number, Subscription[]>> {
  const byChannel = new Map<number, Subscription[]>();
  for (const { table, toSubscriber } of SUBSCRIBER_TABLES) {
    const rows = await db.query<{ id: unknown; subs: ChannelSubscription[] | null }>(
      `SELECT id, definition->'alertChannelSubscriptions' AS subs FROM ${table}
        WHERE account_id = $1 AND jsonb_typeof(definition->'alertChannelSubscriptions') = 'array'
          AND jsonb_array_length(definition->'alertChannelSubscriptions') > 0
        ORDER BY created_at, id`,
      [accountId],
    );
    for (const row of rows) {
      for (const sub of row.subs ?? []) {
        const list = byChannel.get(sub.alertChannelId) ?? [];
        list.push({ ...toSubscriber(row.id), activated: sub.activated });
        byChannel.set(sub.alertChannelId, list);
      }
    }
  }
  return byChannel;
}

export async function subscriptionsOfChannel(
  db: Db,
  accountId: string,
  channelId: number,
): Promise<Subscription[]> {
  return (await subscriptionsByChannel(db, accountId)).get(channelId) ?? [];
}

function whereSubscriber(subscriber: Subscriber): { table: string; id: string | number } {
  return 'checkId' in subscriber
    ? { table: 'checks', id: subscriber.checkId }
    : { table: 'check_groups', id: subscriber.groupId };
}

/** Subscribes (or, with activated false, pauses) one check or group; false when it does not exist. */
export async function setSubscription(
  db: Db,
  accountId: string,
  channelId: number,
  subscriber: Subscriber,
  activated: boolean,
): Promise<boolean> {
  const { table, id } = whereSubscriber(subscriber);
  const [row] = await db.query<{ subs: ChannelSubscription[] | null }>(
    `SELECT definition->'alertChannelSubscriptions' AS subs FROM ${table} WHERE account_id = $1 AND id = $2 FOR UPDATE`,
    [accountId, id],
  );
  if (!row) return false;
  const subs = (row.subs ?? []).filter((s) => s.alertChannelId !== channelId);
  subs.push({ alertChannelId: channelId, activated });
  await db.query(
    `UPDATE ${table} SET definition = jsonb_set(definition, '{alertChannelSubscriptions}', $3::jsonb)
      WHERE account_id = $1 AND id = $2`,
    [accountId, id, jsonParam(subs)],
  );
  return true;
}

/** Removes a channel from every check and group of the account (the channel is deleted or resubscribed). */
export async function removeChannelSubscriptions(
  db: Db,
  accountId: string,
  channelId: number,
): Promise<void> {
  for (const { table } of SUBSCRIBER_TABLES) {
    await db.query(
      `UPDATE ${table} SET definition = jsonb_set(definition, '{alertChannelSubscriptions}',
         (SELECT coalesce(jsonb_agg(s), '[]'::jsonb) FROM jsonb_array_elements(definition->'alertChannelSubscriptions') s
           WHERE (s->>'alertChannelId')::bigint <> $2))
        WHERE account_id = $1 AND definition->'alertChannelSubscriptions' @> $3::jsonb`,
      [accountId, channelId, jsonParam([{ alertChannelId: channelId }])],
    );
  }
}

/**
 * The subscriptions of a new check or group: those it asks for, plus every channel of the account when
 * autoAssignAlerts is on, or else the channels marked autoSubscribe.
 */
export async function subscriptionsForNew(
  db: Db,
  accountId: string,
  requested: readonly ChannelSubscription[],
  autoAssignAlerts: boolean,
): Promise<ChannelSubscription[]> {
  const channels = await alertChannelStore(db).list(accountId);
  const subs = [...requested];
  for (const channel of channels) {
    const id = Number(channel.id);
    if (!autoAssignAlerts && !channel.document.autoSubscribe) continue;
    if (!subs.some((s) => s.alertChannelId === id)) subs.push({ alertChannelId: id, activated: true });
  }
  return subs;
}
