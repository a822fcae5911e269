import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { alertNotificationSchema, listNotifications } from '../alerts/notifications-query.js';
import { NOTIFICATION_STATUSES } from '../alerts/outbox.js';
import { ALERT_STATES, ALERT_TYPES } from '../alerts/state-machine.js';
import { alertStateView } from '../alerts/state-store.js';
import { notFound } from '../common/errors.js';
import type { ServerContext } from '../context.js';
import { defineRoute } from '../http/route.js';
import { paginationFields, stringIdParams, unixSeconds } from './params.js';

const alertStateSchema = z.object({
  checkId: z.string(),
  state: z.enum(ALERT_STATES),
  since: z.string().nullable(),
  failedSessions: z.number().int(),
  failingSince: z.string().nullable(),
  alerted: z.boolean().describe('Whether the current failure or degradation was sent to channels'),
  remindersSent: z.number().int(),
  nextReminderAt: z.string().nullable(),
});

/** What alerting sent, or is still sending (docs/alerting.md, Delivery), and where each check stands. */
export function registerAlertNotificationRoutes(app: FastifyInstance, { db }: ServerContext): void {
  defineRoute(app, {
    method: 'GET',
    path: '/v1/alert-notifications',
    summary: 'List alert notifications, newest first, with each delivery attempt',
    tag: 'Alert notifications',
    auth: 'user',
    query: z.object({
      checkId: z.string().min(1).optional().describe('Only notifications about this check'),
      alertChannelId: z.coerce.number().int().min(1).optional().describe('Only those sent to this channel'),
      alertType: z.enum(ALERT_TYPES).optional().describe('Only this type of alert'),
      status: z
        .enum(NOTIFICATION_STATUSES)
        .optional()
        .describe('PENDING (still being tried), SENT or FAILED'),
      from: unixSeconds('Written at or after'),
      to: unixSeconds('Written at or before'),
      ...paginationFields,
    }),
    responses: { 200: { description: 'Successful', schema: z.array(alertNotificationSchema) } },
    handler: async ({ auth, query }) => listNotifications(db, auth.accountId, query),
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/checks/{id}/alert-state',
    summary: 'The alert state of a check: PASSING, DEGRADED or FAILING, since when, and its failure so far',
    tag: 'Alert notifications',
    auth: 'user',
    params: stringIdParams,
    responses: {
      200: { description: 'Successful', schema: alertStateSchema },
      404: { description: 'No such check' },
    },
    handler: async ({ auth, params }) => {
      const [check] = await db.query('SELECT 1 FROM checks WHERE id = $1 AND account_id = $2', [
        params.id,
        auth.accountId,
      ]);
      if (!check) throw notFound('Check', params.id);
      return alertStateView(db, auth.accountId, params.id);
    },
  });
}
