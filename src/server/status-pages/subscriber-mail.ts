import type { SendMailOptions } from 'nodemailer';
import { sendMail } from '../mail/transport.js';
import { maintenanceStore } from '../maintenance/active.js';
import { occurrence } from '../maintenance/occurrences.js';
import type { Db } from '../store/db.js';
import { getIncident } from './incidents.js';
import { statusPages } from './pages.js';
import { subscriptionStore } from './subscriptions.js';
import { spoken as words } from './words.js';

/** Mails claimed per pass; each claim holds its rows this long, so a replica that dies mid-send frees them. */
const BATCH = 20;
const CLAIM_MS = 60_000;
/** Tries before a mail is given up: 30 s, 1 min, 2 min, … about 2 hours in all. */
const MAX_ATTEMPTS = 8;

export interface SubscriberMailSettings {
  publicUrl: string;
  smtpUrl?: string;
  emailFrom: string;
}

interface MailRow {
  id: string;
  account_id: string;
  subscription_id: string;
  kind: 'VERIFY' | 'INCIDENT' | 'MAINTENANCE';
  incident_id: string | null;
  update_id: string | null;
  attempts: number;
}

/** The mail of one row as it reads now; null when its subscription, page or incident is gone. */
async function compose(
  db: Db,
  row: MailRow,
  settings: SubscriberMailSettings,
): Promise<SendMailOptions | null> {
  const subscription = await subscriptionStore(db).get(row.account_id, row.subscription_id);
  if (!subscription) return null;
  const page = await statusPages(db).get(row.account_id, subscription.document.statusPageId);
  if (!page) return null;
  const pageUrl = `${settings.publicUrl}/status/${page.document.url}`;
  const links = `${pageUrl}/subscriptions/${subscription.id}`;
  const token = encodeURIComponent(subscription.document.token ?? '');
  const unsubscribeUrl = `${links}/unsubscribe?token=${token}`;
  const base = { from: settings.emailFrom, to: subscription.document.address };
  if (row.kind === 'VERIFY') {
    const verifyUrl = `${links}/verify?token=${token}`;
    return {
      ...base,
      subject: `Confirm your subscription to ${page.document.name} status`,
      text:
        `Someone, hopefully you, asked for e-mail about incidents on ${page.document.name} (${pageUrl}).\n\n` +
        `Confirm with this link:\n${verifyUrl}\n\nIf it was not you, ignore this mail: nothing more will be sent.\n`,
    };
  }
  const footer =
    `Status page: ${pageUrl}\n\n` +
    `You get this mail because you subscribed to ${page.document.name} status. Unsubscribe: ${unsubscribeUrl}\n`;
  // RFC 8058: mail programs offer a one-click unsubscribe that POSTs to this address.
  const headers = {
    'List-Unsubscribe': `<${unsubscribeUrl}>`,
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
  };
  if (row.kind === 'MAINTENANCE') {
    const [update] = await db.query<{
      window_id: string;
      maintenance_id: string;
      status: string;
      description: string;
    }>('SELECT window_id, maintenance_id, status, description FROM maintenance_updates WHERE id = $1', [
      row.update_id,
    ]);
    const window = update && (await maintenanceStore(db).get(row.account_id, update.window_id));
    const span = window && occurrence(window.document, Number(update.maintenance_id));
    if (!update || !window || !span) return null;
    return {
      ...base,
      subject: `[${page.document.name}] Maintenance ${window.document.name}: ${words(update.status)}`,
      text:
        `${window.document.name}: ${span.startsAt.toISOString()} – ${span.endsAt.toISOString()}\n\n` +
        `${words(update.status)}: ${update.description}\n\n${footer}`,
      headers,
    };
  }
  const incident = await getIncident(db, row.account_id, row.incident_id ?? '');
  const update = incident?.updates.find((u) => u.id === row.update_id);
  if (!incident || !update) return null;
  return {
    ...base,
    subject: `[${page.document.name}] ${incident.name}: ${words(update.status)}`,
    text:
      `${incident.name} (${words(incident.severity)})\n\n${words(update.status)}: ${update.description}\n` +
      `${update.created_at}\n\nStatus page: ${pageUrl}\n\n` +
      `You get this mail because you subscribed to ${page.document.name} status. Unsubscribe: ${unsubscribeUrl}\n`,
    // RFC 8058: mail programs offer a one-click unsubscribe that POSTs to this address.
    headers: {
      'List-Unsubscribe': `<${unsubscribeUrl}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  };
}

async function settle(db: Db, row: MailRow, status: string, error: string | null, retryAt: Date | null) {
  await db.query(
    `UPDATE subscriber_mails SET status = $2, attempts = attempts + 1, last_error = $3,
            next_attempt_at = coalesce($4, next_attempt_at) WHERE id = $1`,
    [row.id, status, error, retryAt],
  );
}

const MAIL_DUE = "status = 'PENDING' AND next_attempt_at <= $1";

/** Whether a mail to a subscriber is due at `$1` (src/server/scheduler/sweeps.ts). */
export const SUBSCRIBER_MAIL_PROBE = `EXISTS (SELECT 1 FROM subscriber_mails WHERE ${MAIL_DUE})`;

/**
 * Sends the due mails of the outbox, a batch at a time; answers how many it looked at. Each row is claimed (moved
 * CLAIM_MS ahead) in a short transaction first, so replicas never send one twice. A refusal of the mail server
 * (5xx) or a mail whose subscription is gone ends a row; other errors are tried again later.
 */
export async function deliverSubscriberMails(
  db: Db,
  settings: SubscriberMailSettings,
  now: Date,
): Promise<number> {
  if (!settings.smtpUrl) return 0;
  const rows = await db.transaction((tx) =>
    tx.query<MailRow>(
      `WITH due AS (
         SELECT id FROM subscriber_mails WHERE ${MAIL_DUE}
          ORDER BY next_attempt_at, seq LIMIT $2 FOR UPDATE SKIP LOCKED)
       UPDATE subscriber_mails m SET next_attempt_at = $3 FROM due WHERE m.id = due.id
       RETURNING m.id, m.account_id, m.subscription_id, m.kind, m.incident_id, m.update_id, m.attempts`,
      [now, BATCH, new Date(now.getTime() + CLAIM_MS)],
    ),
  );
  for (const row of rows) {
    const mail = await compose(db, row, settings);
    if (!mail) {
      await settle(db, row, 'DROPPED', 'its subscription, page or incident is gone', null);
      continue;
    }
    try {
      await sendMail(settings.smtpUrl, mail);
      await settle(db, row, 'SENT', null, null);
    } catch (error) {
      const code = (error as { responseCode?: number }).responseCode;
      const message = (error as Error).message.slice(0, 300);
      const last = row.attempts + 1 >= MAX_ATTEMPTS || (typeof code === 'number' && code >= 500);
      const retryAt = new Date(now.getTime() + 30_000 * 2 ** row.attempts);
      await settle(db, row, last ? 'FAILED' : 'PENDING', message, last ? null : retryAt);
    }
  }
  return rows.length;
}
