import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { getCheck } from '../checks/repository.js';
import { notFound } from '../common/errors.js';
import type { ServerContext } from '../context.js';
import { getGroup } from '../groups/repository.js';
import { defineRoute } from '../http/route.js';
import {
  deleteTrigger,
  ensureTrigger,
  getTrigger,
  type TriggerTarget,
  triggerResponse,
  triggerResponseSchema,
} from '../triggers/store.js';
import { integerId } from './params.js';

const TAG = 'Triggers';

interface TargetRoutes<P extends z.ZodType> {
  path: string;
  /** 'check' or 'check group', for summaries and 404s. */
  what: string;
  params: P;
  targetOf(params: z.output<P>): TriggerTarget;
  /** Whether the target exists in the account. */
  exists(accountId: string, target: TriggerTarget): Promise<boolean>;
}

function registerTargetRoutes<P extends z.ZodType>(
  app: FastifyInstance,
  { db, config }: ServerContext,
  spec: TargetRoutes<P>,
): void {
  const resolve = async (accountId: string, params: z.output<P>) => {
    const target = spec.targetOf(params);
    const id = target.kind === 'check' ? target.checkId : target.groupId;
    if (!(await spec.exists(accountId, target)))
      throw notFound(spec.what === 'check' ? 'Check' : 'Check group', id);
    return { target, id };
  };
  const notFoundError = { description: `No such ${spec.what} or trigger` };

  defineRoute(app, {
    method: 'POST',
    path: spec.path,
    summary: `Create the trigger of a ${spec.what} (a second call returns the same trigger)`,
    tag: TAG,
    auth: 'user',
    params: spec.params,
    responses: { 201: { description: 'Created', schema: triggerResponseSchema }, 404: notFoundError },
    handler: async ({ auth, params }) => {
      const { target } = await resolve(auth.accountId, params as z.output<P>);
      return triggerResponse(config.publicUrl, target, await ensureTrigger(db, auth.accountId, target));
    },
  });

  defineRoute(app, {
    method: 'GET',
    path: spec.path,
    summary: `Get the trigger of a ${spec.what}`,
    tag: TAG,
    auth: 'user',
    params: spec.params,
    responses: { 200: { description: 'Successful', schema: triggerResponseSchema }, 404: notFoundError },
    handler: async ({ auth, params }) => {
      const { target, id } = await resolve(auth.accountId, params as z.output<P>);
      const stored = await getTrigger(db, auth.accountId, target);
      if (!stored) throw notFound(`Trigger of ${spec.what}`, id);
      return triggerResponse(config.publicUrl, target, stored);
    },
  });

  defineRoute(app, {
    method: 'DELETE',
    path: spec.path,
    summary: `Delete the trigger of a ${spec.what}`,
    tag: TAG,
    auth: 'user',
    params: spec.params,
    responses: { 204: { description: 'No Content' }, 404: notFoundError },
    handler: async ({ auth, params }) => {
      const { target, id } = await resolve(auth.accountId, params as z.output<P>);
      if (!(await deleteTrigger(db, auth.accountId, target))) throw notFound(`Trigger of ${spec.what}`, id);
    },
  });
}

/** Check and group triggers: `{id, token, url}`; the URL starts the check (or the group's checks) without a key. */
export function registerTriggerRoutes(app: FastifyInstance, context: ServerContext): void {
  const { db } = context;
  registerTargetRoutes(app, context, {
    path: '/v1/triggers/checks/{checkId}',
    what: 'check',
    params: z.object({ checkId: z.string().min(1) }),
    targetOf: (p) => ({ kind: 'check', checkId: p.checkId }),
    exists: async (accountId, t) => t.kind === 'check' && (await getCheck(db, accountId, t.checkId)) !== null,
  });
  registerTargetRoutes(app, context, {
    path: '/v1/triggers/check-groups/{groupId}',
    what: 'check group',
    params: z.object({ groupId: integerId }),
    targetOf: (p) => ({ kind: 'group', groupId: p.groupId }),
    exists: async (accountId, t) => t.kind === 'group' && (await getGroup(db, accountId, t.groupId)) !== null,
  });
}
