import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.js';
import { jsonParam } from '../store/rows.js';
import type { AlertChannelType } from './channel-schema.js';
import type { AlertType } from './state-machine.js';
import type { AlertVariables } from './variables.js';

/** How long a notification is tried before it is given up. */
const DELIVERY_WINDOW_MS = 24 * 3_600_000;

export interface NewNotification {
  accountId: string;
  checkId: string;
  channelId: number;
  channelType: AlertChannelType;
  alertType: AlertType;
  sessionId: string | null;
  episodeId: string;
  variables: AlertVariables;
}

export const NOTIFICATION_STATUSES = ['PENDING', 'SENT', 'FAILED'] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

export interface AttemptRecord {
  at: string;
  outcome: 'SENT' | 'RETRY' | 'FAILED';
  responseStatus: number | null;
  detail: string;
  durationMs: number;
}

export interface NotificationRow {
  id: string;
  /** The order notifications were written in. */
  seq: string | number;
  account_id: string;
  check_id: string;
  channel_id: string | number;
  channel_type: AlertChannelType;
  alert_type: AlertType;
  session_id: string | null;
  episode_id: string;
  variables: AlertVariables;
  status: NotificationStatus;
  attempts: number;
  attempt_log: AttemptRecord[];
  response_status: number | null;
  last_error: string | null;
  next_attempt_at: Date;
  give_up_at: Date;
  created_at: Date;
  sent_at: Date | null;
}

/** Writes notifications to the outbox, in the caller's transaction: they are sent once it commits. */
export async function enqueueNotifications(
  tx: Db,
  notifications: readonly NewNotification[],
  now: Date,
): Promise<void> {
  for (const n of notifications) {
    await tx.query(
      `INSERT INTO alert_notifications (id, account_id, check_id, channel_id, channel_type, alert_type, session_id,
                                        episode_id, variables, next_attempt_at, give_up_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, $10)`,
      [
        randomUUID(),
        n.accountId,
        n.checkId,
        n.channelId,
        n.channelType,
        n.alertType,
        n.sessionId,
        n.episodeId,
        jsonParam(n.variables),
        now,
        new Date(now.getTime() + DELIVERY_WINDOW_MS),
      ],
    );
  }
}

const NOTIFICATION_DUE = "status = 'PENDING' AND next_attempt_at <= $1";

/** Whether a notification is due at `$1` (src/server/scheduler/sweeps.ts). */
export const DELIVERY_PROBE = `EXISTS (SELECT 1 FROM alert_notifications WHERE ${NOTIFICATION_DUE})`;

/**
 * Takes up to `limit` due notifications for this replica: each is leased by moving its next attempt past
 * `leaseUntil`, so no other replica takes it while it is being sent (nor after a crash, until then).
 */
export async function claimDueNotifications(
  db: Db,
  now: Date,
  leaseUntil: Date,
  limit: number,
): Promise<NotificationRow[]> {
  // One statement, atomic on its own: no transaction around it (two statements fewer per claim).
  return db.query<NotificationRow>(
    `UPDATE alert_notifications SET next_attempt_at = $2, attempts = attempts + 1
      WHERE id IN (SELECT id FROM alert_notifications
                    WHERE ${NOTIFICATION_DUE}
                    ORDER BY next_attempt_at, seq LIMIT $3 FOR UPDATE SKIP LOCKED)
      RETURNING *`,
    [now, leaseUntil, limit],
  );
}

/** How many attempts the log of a notification keeps: the latest ones. */
const KEPT_ATTEMPTS = 50;

/** Records one attempt: the notification ends (SENT, FAILED) or waits until `retryAt`. */
export async function recordAttempt(
  db: Db,
  id: string,
  attempt: AttemptRecord,
  status: NotificationStatus,
  retryAt: Date | null,
  now: Date,
): Promise<void> {
  await db.query(
    `UPDATE alert_notifications
        SET status = $2, response_status = $3, last_error = $4, next_attempt_at = coalesce($5, next_attempt_at),
            sent_at = CASE WHEN $2 = 'SENT' THEN $6::timestamptz ELSE sent_at END,
            attempt_log = (SELECT coalesce(jsonb_agg(a ORDER BY n), '[]'::jsonb) FROM (
              SELECT a, n FROM jsonb_array_elements(attempt_log || $7::jsonb) WITH ORDINALITY AS t(a, n)
              ORDER BY n DESC LIMIT ${KEPT_ATTEMPTS}) kept)
      WHERE id = $1`,
    [
      id,
      status,
      attempt.responseStatus,
      attempt.outcome === 'SENT' ? null : attempt.detail,
      retryAt,
      now,
      jsonParam([attempt]),
    ],
  );
}
