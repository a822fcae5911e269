import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Db } from '../store/db.js';
import { ResourceStore, type StoredResource } from '../store/resources.js';
import { statusPages } from './pages.js';
import type { SubscriptionDocument } from './schema.js';

export const subscriptionStore = (db: Db) =>
  new ResourceStore<SubscriptionDocument>(db, 'status-page-subscription');

/** Queues one mail to a subscriber; composed and sent by the delivery loop (subscriber-mail.ts). */
export async function enqueueSubscriberMail(
  tx: Db,
  mail: {
    accountId: string;
    subscriptionId: string;
    kind: 'VERIFY' | 'INCIDENT';
    incidentId?: string;
    updateId?: string;
  },
  now: Date,
): Promise<void> {
  await tx.query(
    `INSERT INTO subscriber_mails (id, account_id, subscription_id, kind, incident_id, update_id, next_attempt_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
    [
      randomUUID(),
      mail.accountId,
      mail.subscriptionId,
      mail.kind,
      mail.incidentId ?? null,
      mail.updateId ?? null,
      now,
    ],
  );
}

/**
 * Subscribes an address to a page: PENDING, with a verification mail on its way. Answers null when the address is
 * subscribed already (PENDING or VERIFIED), which the API refuses and the page's form does not tell.
 */
export async function subscribe(
  tx: Db,
  accountId: string,
  statusPageId: string,
  address: string,
  now: Date,
): Promise<StoredResource<SubscriptionDocument> | null> {
  const store = subscriptionStore(tx);
  if ((await store.list(accountId, { statusPageId, address })).length > 0) return null;
  const created = await store.create(accountId, randomUUID(), {
    statusPageId,
    type: 'EMAIL',
    address,
    status: 'PENDING',
    token: randomBytes(24).toString('base64url'),
  });
  await enqueueSubscriberMail(tx, { accountId, subscriptionId: created.id, kind: 'VERIFY' }, now);
  return created;
}

/** The subscription with this id, when `token` is its secret; null otherwise. */
async function withToken(
  db: Db,
  id: string,
  token: string,
): Promise<{ accountId: string; subscription: StoredResource<SubscriptionDocument> } | null> {
  const [row] = await db.query<{ account_id: string }>(
    "SELECT account_id FROM resources WHERE kind = 'status-page-subscription' AND id = $1",
    [id],
  );
  if (!row) return null;
  const subscription = await subscriptionStore(db).get(row.account_id, id);
  const secret = subscription?.document.token;
  if (!subscription || !secret || secret.length !== token.length) return null;
  if (!timingSafeEqual(Buffer.from(secret), Buffer.from(token))) return null;
  return { accountId: row.account_id, subscription };
}

/** Follows a verification link: the subscription becomes VERIFIED. False for a wrong id or token. */
export async function verifySubscription(db: Db, id: string, token: string): Promise<boolean> {
  const found = await withToken(db, id, token);
  if (!found) return false;
  await subscriptionStore(db).update(found.accountId, id, {
    ...found.subscription.document,
    status: 'VERIFIED',
  });
  return true;
}

/** Follows an unsubscribe link: the subscription is gone. False for a wrong id or token (or gone already). */
export async function unsubscribe(db: Db, id: string, token: string): Promise<boolean> {
  const found = await withToken(db, id, token);
  if (!found) return false;
  return subscriptionStore(db).delete(found.accountId, id);
}

/**
 * Queues a mail about an incident's update to every VERIFIED subscriber of the account's pages that show its
 * service, once per address.
 */
export async function enqueueIncidentMails(
  tx: Db,
  accountId: string,
  incident: { id: string; serviceId: string; updateId: string },
  now: Date,
): Promise<void> {
  const pages = (await statusPages(tx).list(accountId)).filter((p) =>
    p.document.cards.some((card) => card.services.some((s) => s.id === incident.serviceId)),
  );
  const told = new Set<string>();
  for (const page of pages) {
    for (const s of await subscriptionStore(tx).list(accountId, { statusPageId: page.id })) {
      if (s.document.status !== 'VERIFIED' || told.has(s.document.address.toLowerCase())) continue;
      told.add(s.document.address.toLowerCase());
      await enqueueSubscriberMail(
        tx,
        {
          accountId,
          subscriptionId: s.id,
          kind: 'INCIDENT',
          incidentId: incident.id,
          updateId: incident.updateId,
        },
        now,
      );
    }
  }
}
