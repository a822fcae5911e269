import { z } from 'zod';
import type { Db } from '../store/db.js';
import { iso, isoOrNull } from '../store/rows.js';
import { ALERT_CHANNEL_TYPES } from './channel-schema.js';
import { NOTIFICATION_STATUSES, type NotificationRow, type NotificationStatus } from './outbox.js';
import { ALERT_TYPES } from './state-machine.js';

export interface NotificationFilter {
  checkId?: string | undefined;
  alertChannelId?: number | undefined;
  alertType?: (typeof ALERT_TYPES)[number] | undefined;
  status?: NotificationStatus | undefined;
  /** UNIX seconds, on when the notification was written. */
  from?: number | undefined;
  to?: number | undefined;
  page: number;
  limit: number;
}

const attemptSchema = z.object({
  at: z.string(),
  outcome: z.enum(['SENT', 'RETRY', 'FAILED']),
  responseStatus: z.number().int().nullable(),
  detail: z.string(),
  durationMs: z.number(),
});

/** A notification as GET /v1/alert-notifications shows it. */
export const alertNotificationSchema = z.object({
  id: z.string(),
  checkId: z.string(),
  alertChannelId: z.number().int(),
  channelType: z.enum(ALERT_CHANNEL_TYPES),
  alertType: z.enum(ALERT_TYPES),
  title: z.string(),
  checkSessionId: z.string().nullable(),
  status: z.enum(NOTIFICATION_STATUSES),
  attempts: z.number().int(),
  responseStatus: z.number().int().nullable(),
  error: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
  attemptLog: z.array(attemptSchema),
  created_at: z.string(),
  sentAt: z.string().nullable(),
});

function listed(row: NotificationRow): z.infer<typeof alertNotificationSchema> {
  return {
    id: row.id,
    checkId: row.check_id,
    alertChannelId: Number(row.channel_id),
    channelType: row.channel_type,
    alertType: row.alert_type,
    title: row.variables.ALERT_TITLE,
    checkSessionId: row.session_id,
    status: row.status,
    attempts: row.attempts,
    responseStatus: row.response_status,
    error: row.last_error,
    nextAttemptAt: row.status === 'PENDING' ? iso(row.next_attempt_at) : null,
    attemptLog: row.attempt_log,
    created_at: iso(row.created_at),
    sentAt: isoOrNull(row.sent_at),
  };
}

/** An account's notifications, newest first. */
export async function listNotifications(db: Db, accountId: string, filter: NotificationFilter) {
  const params: unknown[] = [accountId];
  const where = ['account_id = $1'];
  const add = (column: string, op: string, value: unknown) => {
    params.push(value);
    where.push(`${column} ${op} $${params.length}`);
  };
  if (filter.checkId !== undefined) add('check_id', '=', filter.checkId);
  if (filter.alertChannelId !== undefined) add('channel_id', '=', filter.alertChannelId);
  if (filter.alertType !== undefined) add('alert_type', '=', filter.alertType);
  if (filter.status !== undefined) add('status', '=', filter.status);
  if (filter.from !== undefined) add('created_at', '>=', new Date(filter.from * 1000));
  if (filter.to !== undefined) add('created_at', '<=', new Date(filter.to * 1000));
  params.push(filter.limit, (filter.page - 1) * filter.limit);
  const rows = await db.query<NotificationRow>(
    `SELECT * FROM alert_notifications WHERE ${where.join(' AND ')}
      ORDER BY created_at DESC, seq DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
    params,
  );
  return rows.map(listed);
}

/** How many notifications the store holds, by channel type and status (for /metrics). */
export async function notificationCounts(
  db: Db,
): Promise<{ channel_type: string; status: NotificationStatus; count: number }[]> {
  const rows = await db.query<{ channel_type: string; status: NotificationStatus; count: unknown }>(
    'SELECT channel_type, status, count(*) AS count FROM alert_notifications GROUP BY channel_type, status',
  );
  return rows.map((r) => ({ ...r, count: Number(r.count) }));
}
