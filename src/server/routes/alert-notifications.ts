import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  alertNotificationSchema,
  listNotifications,
  NOTIFICATION_STATUSES,
} from '../alerts/notifications-query.js';
import { ALERT_TYPES } from '../alerts/state-machine.js';
import type { ServerContext } from '../context.js';
import { defineRoute } from '../http/route.js';
import { paginationFields, unixSeconds } from './params.js';

/** What alerting sent, or is still sending (design/alerting.md, Delivery). */
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
}
