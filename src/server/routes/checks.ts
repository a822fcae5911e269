import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { CHECK_TYPES } from '../../checks/index.js';
import { KIND_PATHS, type KindPath } from '../checks/kinds.js';
import { getCheck, listChecks } from '../checks/repository.js';
import { checkResponse, loadCheckView } from '../checks/response.js';
import {
  anyCheckResponseSchema,
  anyCreateBodySchema,
  anyUpdateBodySchema,
  checkResponseSchema,
  createBodySchema,
  updateBodySchema,
} from '../checks/schemas.js';
import { createCheck, deleteCheck, updateCheckFromBody } from '../checks/service.js';
import { notFound } from '../common/errors.js';
import type { ServerContext } from '../context.js';
import { defineRoute } from '../http/route.js';
import { autoAssignAlertsQuery, integerId, paginationFields, repeatable, stringIdParams } from './params.js';

const TAG = 'Checks';

const listQuery = z.object({
  checkType: z
    .string()
    .transform((t) => t.toUpperCase())
    .pipe(z.enum(CHECK_TYPES))
    .optional()
    .describe('Only checks of this kind'),
  tag: repeatable.optional().describe('Only checks that carry this tag; repeat it to require several tags'),
  groupId: integerId.optional().describe('Only checks of this check group'),
  activated: z.stringbool().optional().describe('Only activated (true) or deactivated (false) checks'),
  name: z.string().optional().describe('Only checks whose name contains this text (case-insensitive)'),
  ...paginationFields,
});

/** Checks: create and update per kind, and the kind-independent routes (spec, Checks). */
export function registerCheckRoutes(app: FastifyInstance, { db, runs }: ServerContext): void {
  const respond = async (accountId: string, stored: Parameters<typeof checkResponse>[0]) =>
    checkResponse(stored, await loadCheckView(db, accountId));

  for (const path of Object.keys(KIND_PATHS) as KindPath[]) {
    const kind = KIND_PATHS[path];
    defineRoute(app, {
      method: 'POST',
      path: `/v1/checks/${path}`,
      summary: `Create a check of type ${kind}`,
      tag: TAG,
      auth: 'user',
      query: autoAssignAlertsQuery,
      body: createBodySchema(kind),
      responses: { 201: { description: 'Created', schema: checkResponseSchema(kind) } },
      handler: async ({ auth, body, query }) =>
        respond(
          auth.accountId,
          await createCheck(db, auth.accountId, body as Record<string, unknown>, {
            autoAssignAlerts: query.autoAssignAlerts,
            now: runs.clock(),
          }),
        ),
    });
    defineRoute(app, {
      method: 'PUT',
      path: `/v1/checks/${path}/{id}`,
      summary: `Update a check of type ${kind} (fields given replace the stored ones)`,
      tag: TAG,
      auth: 'user',
      params: stringIdParams,
      query: autoAssignAlertsQuery,
      body: updateBodySchema(kind),
      responses: {
        200: { description: 'Successful', schema: checkResponseSchema(kind) },
        404: { description: 'No such check' },
      },
      handler: async ({ auth, params, request }) =>
        respond(
          auth.accountId,
          await updateCheckFromBody(
            db,
            auth.accountId,
            params.id,
            request.body as Record<string, unknown>,
            runs.clock(),
            kind,
          ),
        ),
    });
  }

  defineRoute(app, {
    method: 'POST',
    path: '/v1/checks',
    summary: 'Create a check of the kind named by checkType',
    tag: TAG,
    auth: 'user',
    query: autoAssignAlertsQuery,
    body: anyCreateBodySchema,
    responses: { 201: { description: 'Created', schema: anyCheckResponseSchema } },
    handler: async ({ auth, body, query }) =>
      respond(
        auth.accountId,
        await createCheck(db, auth.accountId, body as Record<string, unknown>, {
          autoAssignAlerts: query.autoAssignAlerts,
          now: runs.clock(),
        }),
      ),
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/checks',
    summary: 'List checks, oldest first, with filters',
    tag: TAG,
    auth: 'user',
    query: listQuery,
    responses: { 200: { description: 'Successful', schema: z.array(anyCheckResponseSchema) } },
    handler: async ({ auth, query }) => {
      const checks = await listChecks(db, auth.accountId, { ...query, tags: query.tag });
      const view = await loadCheckView(db, auth.accountId);
      return checks.map((check) => checkResponse(check, view));
    },
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/checks/{id}',
    summary: 'Get a check',
    tag: TAG,
    auth: 'user',
    params: stringIdParams,
    responses: {
      200: { description: 'Successful', schema: anyCheckResponseSchema },
      404: { description: 'No such check' },
    },
    handler: async ({ auth, params }) => {
      const check = await getCheck(db, auth.accountId, params.id);
      if (!check) throw notFound('Check', params.id);
      return respond(auth.accountId, check);
    },
  });

  defineRoute(app, {
    method: 'PUT',
    path: '/v1/checks/{id}',
    summary: 'Update a check of any kind (fields given replace the stored ones)',
    tag: TAG,
    auth: 'user',
    params: stringIdParams,
    body: anyUpdateBodySchema,
    responses: {
      200: { description: 'Successful', schema: anyCheckResponseSchema },
      404: { description: 'No such check' },
    },
    handler: async ({ auth, params, body }) =>
      respond(auth.accountId, await updateCheckFromBody(db, auth.accountId, params.id, body, runs.clock())),
  });

  defineRoute(app, {
    method: 'DELETE',
    path: '/v1/checks/{id}',
    summary: 'Delete a check, its trigger and its heartbeat events',
    tag: TAG,
    auth: 'user',
    params: stringIdParams,
    responses: { 204: { description: 'No Content' }, 404: { description: 'No such check' } },
    handler: async ({ auth, params }) => {
      if (!(await deleteCheck(db, auth.accountId, params.id))) throw notFound('Check', params.id);
    },
  });
}
