import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { runnableCheckIdsInGroup } from '../checks/repository.js';
import { ApiError, notFound } from '../common/errors.js';
import type { ServerContext } from '../context.js';
import { defineRoute } from '../http/route.js';
import { checkSessionSchema } from '../sessions/schemas.js';
import { triggerCheckSessions } from '../sessions/trigger.js';
import { findTrigger } from '../triggers/store.js';
import { integerId } from './params.js';

const TAG = 'Triggers';
const TRIGGER_RUN_SOURCE = 'TRIGGER_RECORD';
const startedSchema = z.object({ checkSessions: z.array(checkSessionSchema) });

/**
 * The URLs of check and group triggers: no API key, the token is the secret. Each call starts a check session per
 * check (runSource TRIGGER_RECORD) and returns them without waiting.
 */
export function registerTriggerRunRoutes(app: FastifyInstance, context: ServerContext): void {
  const { db } = context;
  const runs = context.runs;
  const unknown = () => notFound('Trigger', 'token');

  for (const method of ['GET', 'POST'] as const) {
    defineRoute(app, {
      method,
      path: '/checks/{checkId}/trigger/{token}',
      summary: 'Run a check through its trigger URL',
      tag: TAG,
      auth: 'none',
      params: z.object({ checkId: z.string().min(1), token: z.string().min(1) }),
      responses: {
        200: { description: 'Successful', schema: startedSchema },
        404: { description: 'Unknown trigger' },
      },
      handler: async ({ params }) => {
        const trigger = await findTrigger(db, { kind: 'check', checkId: params.checkId }, params.token);
        if (!trigger) throw unknown();
        const target = { checkId: [params.checkId] };
        return {
          checkSessions: await triggerCheckSessions(runs, trigger.accountId, target, TRIGGER_RUN_SOURCE),
        };
      },
    });

    defineRoute(app, {
      method,
      path: '/check-groups/{groupId}/trigger/{token}',
      summary: 'Run the activated checks of a group through its trigger URL',
      tag: TAG,
      auth: 'none',
      params: z.object({ groupId: integerId, token: z.string().min(1) }),
      responses: {
        200: { description: 'Successful', schema: startedSchema },
        404: { description: 'Unknown trigger, or no activated check in the group' },
      },
      handler: async ({ params }) => {
        const trigger = await findTrigger(db, { kind: 'group', groupId: params.groupId }, params.token);
        if (!trigger) throw unknown();
        const checkId = await runnableCheckIdsInGroup(db, trigger.accountId, params.groupId);
        if (checkId.length === 0) {
          throw new ApiError(404, `Check group ${params.groupId} has no activated check to run`);
        }
        return {
          checkSessions: await triggerCheckSessions(runs, trigger.accountId, { checkId }, TRIGGER_RUN_SOURCE),
        };
      },
    });
  }
}
