import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  alertChannelResponseSchema,
  alertChannelSchema,
  subscriptionInputSchema,
  subscriptionSchema,
} from '../alerts/channel-schema.js';
import { alertChannelResponse, alertChannelStore } from '../alerts/channels.js';
import { sendToChannel, targetOf } from '../alerts/delivery.js';
import { sampleEpisodeId, sampleVariables } from '../alerts/sample.js';
import {
  alertChannelById,
  createAlertChannel,
  deleteAlertChannel,
  updateAlertChannel,
} from '../alerts/service.js';
import { ALERT_TYPES } from '../alerts/state-machine.js';
import { setSubscription, subscriptionsByChannel } from '../alerts/subscriptions.js';
import { notFound, validationError } from '../common/errors.js';
import type { ServerContext } from '../context.js';
import { defineRoute } from '../http/route.js';
import { integerIdParams } from './params.js';

const TAG = 'Alert channels';

const testAnswerSchema = z.object({
  outcome: z.enum(['SENT', 'FAILED']),
  responseStatus: z.number().int().nullable(),
  detail: z.string(),
});

/** Alert channels (spec: Alert channel) and their subscriptions. */
export function registerAlertChannelRoutes(app: FastifyInstance, { db, config }: ServerContext): void {
  defineRoute(app, {
    method: 'POST',
    path: '/v1/alert-channels',
    summary: 'Create an alert channel',
    tag: TAG,
    auth: 'user',
    body: alertChannelSchema,
    responses: { 201: { description: 'Created', schema: alertChannelResponseSchema } },
    handler: async ({ auth, body }) => createAlertChannel(db, auth.accountId, body),
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/alert-channels',
    summary: 'List alert channels, oldest first',
    tag: TAG,
    auth: 'user',
    responses: { 200: { description: 'Successful', schema: z.array(alertChannelResponseSchema) } },
    handler: async ({ auth }) => {
      const subscriptions = await subscriptionsByChannel(db, auth.accountId);
      const channels = await alertChannelStore(db).list(auth.accountId);
      return channels.map((c) => alertChannelResponse(c, subscriptions.get(Number(c.id)) ?? []));
    },
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/alert-channels/{id}',
    summary: 'Get an alert channel',
    tag: TAG,
    auth: 'user',
    params: integerIdParams,
    responses: {
      200: { description: 'Successful', schema: alertChannelResponseSchema },
      404: { description: 'No such alert channel' },
    },
    handler: async ({ auth, params }) => alertChannelById(db, auth.accountId, params.id),
  });

  defineRoute(app, {
    method: 'PUT',
    path: '/v1/alert-channels/{id}',
    summary: 'Update an alert channel (fields given replace the stored ones)',
    tag: TAG,
    auth: 'user',
    params: integerIdParams,
    body: z.strictObject(alertChannelSchema.shape).partial(),
    responses: {
      200: { description: 'Successful', schema: alertChannelResponseSchema },
      404: { description: 'No such alert channel' },
    },
    handler: async ({ auth, params, request }) =>
      updateAlertChannel(db, auth.accountId, params.id, request.body as Record<string, unknown>),
  });

  defineRoute(app, {
    method: 'DELETE',
    path: '/v1/alert-channels/{id}',
    summary: 'Delete an alert channel and its subscriptions',
    tag: TAG,
    auth: 'user',
    params: integerIdParams,
    responses: { 204: { description: 'No Content' }, 404: { description: 'No such alert channel' } },
    handler: async ({ auth, params }) => deleteAlertChannel(db, auth.accountId, params.id),
  });

  defineRoute(app, {
    method: 'PUT',
    path: '/v1/alert-channels/{id}/subscriptions',
    summary: 'Subscribe a check or a check group to the channel (activated false pauses it)',
    tag: TAG,
    auth: 'user',
    params: integerIdParams,
    body: subscriptionInputSchema,
    responses: {
      200: { description: 'Successful', schema: subscriptionSchema },
      404: { description: 'No such alert channel' },
    },
    handler: async ({ auth, params, body }) =>
      db.transaction(async (tx) => {
        if (!(await alertChannelStore(tx).get(auth.accountId, String(params.id)))) {
          throw notFound('Alert channel', params.id);
        }
        const subscriber =
          body.checkId !== undefined ? { checkId: body.checkId } : { groupId: body.groupId as number };
        if (!(await setSubscription(tx, auth.accountId, params.id, subscriber, body.activated))) {
          const field = 'checkId' in subscriber ? 'checkId' : 'groupId';
          throw validationError('body', [
            { path: field, message: `${field === 'checkId' ? 'check' : 'check group'} does not exist` },
          ]);
        }
        return { checkId: body.checkId ?? null, groupId: body.groupId ?? null, activated: body.activated };
      }),
  });

  defineRoute(app, {
    method: 'POST',
    path: '/v1/alert-channels/{id}/test',
    summary: 'Send a sample alert through the channel now, and answer what the receiver said',
    tag: TAG,
    auth: 'user',
    params: integerIdParams,
    body: z
      .strictObject({ alertType: z.enum(ALERT_TYPES).default('ALERT_FAILURE') })
      .default({ alertType: 'ALERT_FAILURE' }),
    responses: {
      200: {
        description: 'What the receiver answered (outcome SENT when it took the alert)',
        schema: testAnswerSchema,
      },
      404: { description: 'No such alert channel' },
    },
    handler: async ({ auth, params, body }) => {
      const channel = await alertChannelStore(db).get(auth.accountId, String(params.id));
      if (!channel) throw notFound('Alert channel', params.id);
      const now = new Date();
      const outcome = await sendToChannel(
        db,
        config.alerting,
        auth.accountId,
        targetOf(channel),
        (accountVariables) => ({
          notificationId: randomUUID(),
          alertType: body.alertType,
          episodeId: sampleEpisodeId(),
          variables: sampleVariables(body.alertType, config.publicUrl, now),
          accountVariables,
        }),
      );
      return {
        outcome: outcome.outcome === 'RETRY' ? 'FAILED' : outcome.outcome,
        responseStatus: outcome.responseStatus,
        detail: outcome.detail,
      };
    },
  });
}
