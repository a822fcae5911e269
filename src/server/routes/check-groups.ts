import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { checkGroupSchema } from '../../checks/group.js';
import { listChecks } from '../checks/repository.js';
import { checkResponse, loadCheckView } from '../checks/response.js';
import { anyCheckResponseSchema } from '../checks/schemas.js';
import { notFound } from '../common/errors.js';
import type { ServerContext } from '../context.js';
import { getGroup, listGroups } from '../groups/repository.js';
import {
  checkGroupResponseSchema,
  createGroup,
  deleteGroup,
  groupResponse,
  groupUpdateBodySchema,
  updateGroupFromBody,
} from '../groups/service.js';
import { defineRoute } from '../http/route.js';
import { autoAssignAlertsQuery, integerIdParams, paginationFields } from './params.js';

const TAG = 'Check groups';

/** Check groups (spec: Check group; create is V2). */
export function registerCheckGroupRoutes(app: FastifyInstance, { db, runs }: ServerContext): void {
  for (const [path, deprecated] of [
    ['/v2/check-groups', false],
    ['/v1/check-groups', true],
  ] as const) {
    defineRoute(app, {
      method: 'POST',
      path,
      summary: 'Create a check group',
      tag: TAG,
      auth: 'user',
      deprecated,
      query: autoAssignAlertsQuery,
      body: checkGroupSchema,
      responses: { 201: { description: 'Created', schema: checkGroupResponseSchema } },
      handler: async ({ auth, body, query }) =>
        groupResponse(
          await createGroup(db, auth.accountId, body, { autoAssignAlerts: query.autoAssignAlerts }),
        ),
    });
  }

  defineRoute(app, {
    method: 'GET',
    path: '/v1/check-groups',
    summary: 'List check groups, oldest first',
    tag: TAG,
    auth: 'user',
    query: z.object(paginationFields),
    responses: { 200: { description: 'Successful', schema: z.array(checkGroupResponseSchema) } },
    handler: async ({ auth, query }) => (await listGroups(db, auth.accountId, query)).map(groupResponse),
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/check-groups/{id}',
    summary: 'Get a check group',
    tag: TAG,
    auth: 'user',
    params: integerIdParams,
    responses: {
      200: { description: 'Successful', schema: checkGroupResponseSchema },
      404: { description: 'No such check group' },
    },
    handler: async ({ auth, params }) => {
      const group = await getGroup(db, auth.accountId, params.id);
      if (!group) throw notFound('Check group', params.id);
      return groupResponse(group);
    },
  });

  defineRoute(app, {
    method: 'PUT',
    path: '/v1/check-groups/{id}',
    summary: 'Update a check group (fields given replace the stored ones)',
    tag: TAG,
    auth: 'user',
    params: integerIdParams,
    body: groupUpdateBodySchema,
    responses: {
      200: { description: 'Successful', schema: checkGroupResponseSchema },
      404: { description: 'No such check group' },
    },
    handler: async ({ auth, params, request }) =>
      groupResponse(
        await updateGroupFromBody(
          db,
          auth.accountId,
          params.id,
          request.body as Record<string, unknown>,
          runs.clock(),
        ),
      ),
  });

  defineRoute(app, {
    method: 'DELETE',
    path: '/v1/check-groups/{id}',
    summary: 'Delete an empty check group (409 while checks are in it)',
    tag: TAG,
    auth: 'user',
    params: integerIdParams,
    responses: {
      204: { description: 'No Content' },
      404: { description: 'No such check group' },
      409: { description: 'The group still has checks' },
    },
    handler: async ({ auth, params }) => {
      await deleteGroup(db, auth.accountId, params.id);
    },
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/check-groups/{id}/checks',
    summary: 'List the checks of a check group',
    tag: TAG,
    auth: 'user',
    params: integerIdParams,
    query: z.object(paginationFields),
    responses: {
      200: { description: 'Successful', schema: z.array(anyCheckResponseSchema) },
      404: { description: 'No such check group' },
    },
    handler: async ({ auth, params, query }) => {
      if (!(await getGroup(db, auth.accountId, params.id))) throw notFound('Check group', params.id);
      const checks = await listChecks(db, auth.accountId, {
        groupId: params.id,
        page: query.page,
        limit: query.limit,
      });
      const view = await loadCheckView(db, auth.accountId);
      return checks.map((check) => checkResponse(check, view));
    },
  });
}
