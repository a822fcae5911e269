import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { maintenanceTagsOf } from '../maintenance/active.js';
import { loadChecks } from '../sessions/checks.js';
import type { Db } from '../store/db.js';
import { ResourceStore, type StoredResource } from '../store/resources.js';
import { feedingChecks } from './feeding.js';
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
    kind: 'VERIFY' | 'INCIDENT' | 'MAINTENANCE';
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

/** Queues a mail about an update to every VERIFIED subscriber of these pages, once per address. */
async function enqueueToSubscribersOf(
  tx: Db,
  accountId: string,
  pageIds: readonly string[],
  mail: { kind: 'INCIDENT' | 'MAINTENANCE'; incidentId?: string; updateId: string },
  now: Date,
): Promise<void> {
  const told = new Set<string>();
  for (const statusPageId of pageIds) {
    for (const s of await subscriptionStore(tx).list(accountId, { statusPageId })) {
      if (s.document.status !== 'VERIFIED' || told.has(s.document.address.toLowerCase())) continue;
      told.add(s.document.address.toLowerCase());
      await enqueueSubscriberMail(tx, { accountId, subscriptionId: s.id, ...mail }, now);
    }
  }
}

/** The account's pages that show any of these services. */
async function pagesShowing(tx: Db, accountId: string, serviceIds: ReadonlySet<string>): Promise<string[]> {
  return (await statusPages(tx).list(accountId))
    .filter((p) => p.document.cards.some((card) => card.services.some((s) => serviceIds.has(s.id))))
    .map((p) => p.id);
}

/** Queues a mail about an incident's update to the verified subscribers of the pages that show its service. */
export async function enqueueIncidentMails(
  tx: Db,
  accountId: string,
  incident: { id: string; serviceId: string; updateId: string },
  now: Date,
): Promise<void> {
  const pages = await pagesShowing(tx, accountId, new Set([incident.serviceId]));
  const mail = { kind: 'INCIDENT' as const, incidentId: incident.id, updateId: incident.updateId };
  await enqueueToSubscribersOf(tx, accountId, pages, mail, now);
}

/**
 * Queues a mail about a maintenance's update to the verified subscribers of the pages that show a service whose
 * checks the window's tags cover (as the pages show the maintenance).
 */
export async function enqueueMaintenanceMails(
  tx: Db,
  accountId: string,
  maintenance: { tags: readonly string[]; updateId: string },
  now: Date,
): Promise<void> {
  const covered = new Set<string>();
  for (const [serviceId, checks] of feedingChecks(await loadChecks(tx, { accountId, activatedOnly: true }))) {
    if (checks.some((c) => maintenanceTagsOf(c).some((t) => maintenance.tags.includes(t))))
      covered.add(serviceId);
  }
  const pages = await pagesShowing(tx, accountId, covered);
  await enqueueToSubscribersOf(
    tx,
    accountId,
    pages,
    { kind: 'MAINTENANCE', updateId: maintenance.updateId },
    now,
  );
}
