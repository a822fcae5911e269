import { problemsOf, type ValidationProblem } from '../../checks/index.js';
import { notFound, validationError } from '../common/errors.js';
import { mergeUpdate } from '../common/merge.js';
import type { Db } from '../store/db.js';
import { nextResourceNumber } from '../store/resources.js';
import {
  type AlertChannelDocument,
  type AlertChannelInput,
  alertChannelSchema,
  channelDocumentOf,
  type SubscriptionInput,
} from './channel-schema.js';
import { withStoredSecrets } from './channel-secrets.js';
import { alertChannelResponse, alertChannelStore } from './channels.js';
import { removeChannelSubscriptions, setSubscription, subscriptionsOfChannel } from './subscriptions.js';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Makes the channel's subscribers exactly `subscriptions`; 400 naming those that do not exist. */
async function replaceSubscriptions(
  tx: Db,
  accountId: string,
  channelId: number,
  subscriptions: readonly SubscriptionInput[],
): Promise<void> {
  await removeChannelSubscriptions(tx, accountId, channelId);
  const problems: ValidationProblem[] = [];
  for (const [i, sub] of subscriptions.entries()) {
    const subscriber =
      sub.checkId !== undefined ? { checkId: sub.checkId } : { groupId: sub.groupId as number };
    if (!(await setSubscription(tx, accountId, channelId, subscriber, sub.activated))) {
      const [field, what] = 'checkId' in subscriber ? ['checkId', 'check'] : ['groupId', 'check group'];
      const id = 'checkId' in subscriber ? subscriber.checkId : subscriber.groupId;
      problems.push({ path: `subscriptions[${i}].${field}`, message: `${what} ${id} does not exist` });
    }
  }
  if (problems.length > 0) throw validationError('body', problems);
}

/** The spec's Alert channel with its subscriptions; 404 when the account has no such channel. */
export async function alertChannelById(tx: Db, accountId: string, id: number) {
  const stored = await alertChannelStore(tx).get(accountId, String(id));
  if (!stored) throw notFound('Alert channel', id);
  return alertChannelResponse(stored, await subscriptionsOfChannel(tx, accountId, id));
}

export async function createAlertChannel(db: Db, accountId: string, body: AlertChannelInput) {
  return db.transaction(async (tx) => {
    const id = await nextResourceNumber(tx);
    await alertChannelStore(tx).create(accountId, String(id), channelDocumentOf(body));
    if (body.subscriptions) await replaceSubscriptions(tx, accountId, id, body.subscriptions);
    return alertChannelById(tx, accountId, id);
  });
}

/** Merges the body over the stored channel (a new type takes the body's config whole) and validates it all. */
export async function updateAlertChannel(
  db: Db,
  accountId: string,
  id: number,
  body: Record<string, unknown>,
) {
  return db.transaction(async (tx) => {
    const store = alertChannelStore(tx);
    const stored = await store.get(accountId, String(id));
    if (!stored) throw notFound('Alert channel', id);
    const typeChanges = body.type !== undefined && body.type !== stored.document.type;
    const base: Partial<AlertChannelDocument> = typeChanges
      ? { ...stored.document, config: {} }
      : stored.document;
    const merged = mergeUpdate(base, body) as Record<string, unknown>;
    if (!typeChanges && isObject(merged.config)) {
      merged.config = withStoredSecrets(stored.document.type, merged.config, stored.document.config);
    }
    const parsed = alertChannelSchema.safeParse(merged);
    if (!parsed.success) throw validationError('body', problemsOf(parsed.error));
    await store.update(accountId, String(id), channelDocumentOf(parsed.data));
    if (parsed.data.subscriptions) await replaceSubscriptions(tx, accountId, id, parsed.data.subscriptions);
    return alertChannelById(tx, accountId, id);
  });
}

/** Deletes the channel and unsubscribes every check and group from it. */
export async function deleteAlertChannel(db: Db, accountId: string, id: number): Promise<void> {
  await db.transaction(async (tx) => {
    if (!(await alertChannelStore(tx).delete(accountId, String(id)))) throw notFound('Alert channel', id);
    await removeChannelSubscriptions(tx, accountId, id);
  });
}
