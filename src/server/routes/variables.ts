import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { MASK, type ValidationProblem } from '../../checks/index.js';
import { conflict, notFound, validationError } from '../common/errors.js';
import type { ServerContext } from '../context.js';
import { defineRoute } from '../http/route.js';
import {
  deleteVariable,
  getVariable,
  insertVariable,
  listVariables,
  updateVariable,
  variableFields,
  variableResponse,
  variableResponseSchema,
} from '../variables/repository.js';

const TAG = 'Environment variables';
const keyParams = z.object({ key: z.string().min(1) });

const updateBody = z.strictObject({
  key: z.string().optional().describe('When given, must be the key of the path'),
  value: variableFields.value.optional(),
  locked: z.boolean().optional(),
  secret: z.boolean().optional(),
});

/** Account-level environment variables (`/v1/variables`). */
export function registerVariableRoutes(app: FastifyInstance, { db }: ServerContext): void {
  defineRoute(app, {
    method: 'POST',
    path: '/v1/variables',
    summary: 'Create an environment variable',
    tag: TAG,
    auth: 'user',
    body: z.strictObject(variableFields),
    responses: {
      201: { description: 'Created', schema: variableResponseSchema },
      409: { description: 'A variable with this key exists' },
    },
    handler: async ({ auth, body }) => {
      const created = await insertVariable(db, auth.accountId, body);
      if (!created) throw conflict(`Variable ${JSON.stringify(body.key)} already exists`, { key: body.key });
      return variableResponse(created);
    },
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/variables',
    summary: 'List environment variables, by key',
    tag: TAG,
    auth: 'user',
    responses: { 200: { description: 'Successful', schema: z.array(variableResponseSchema) } },
    handler: async ({ auth }) => (await listVariables(db, auth.accountId)).map(variableResponse),
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/variables/{key}',
    summary: 'Get an environment variable',
    tag: TAG,
    auth: 'user',
    params: keyParams,
    responses: {
      200: { description: 'Successful', schema: variableResponseSchema },
      404: { description: 'No such variable' },
    },
    handler: async ({ auth, params }) => {
      const variable = await getVariable(db, auth.accountId, params.key);
      if (!variable) throw notFound('Variable', params.key);
      return variableResponse(variable);
    },
  });

  defineRoute(app, {
    method: 'PUT',
    path: '/v1/variables/{key}',
    summary: 'Update an environment variable (fields given replace the stored ones)',
    tag: TAG,
    auth: 'user',
    params: keyParams,
    body: updateBody,
    responses: {
      200: { description: 'Successful', schema: variableResponseSchema },
      404: { description: 'No such variable' },
    },
    handler: async ({ auth, params, body }) => {
      const stored = await getVariable(db, auth.accountId, params.key);
      if (!stored) throw notFound('Variable', params.key);
      const problems: ValidationProblem[] = [];
      if (body.key !== undefined && body.key !== params.key) {
        problems.push({ path: 'key', message: 'must be the key of the path (a key cannot be renamed)' });
      }
      if (stored.secret && body.secret === false) {
        problems.push({ path: 'secret', message: 'cannot be turned off: a secret variable stays secret' });
      }
      if (problems.length > 0) throw validationError('body', problems);
      const updated = await updateVariable(db, auth.accountId, {
        key: stored.key,
        // A masked value sent back means "unchanged".
        value: body.value === undefined || body.value === MASK ? stored.value : body.value,
        locked: body.locked ?? stored.locked,
        secret: body.secret ?? stored.secret,
      });
      if (!updated) throw notFound('Variable', params.key);
      return variableResponse(updated);
    },
  });

  defineRoute(app, {
    method: 'DELETE',
    path: '/v1/variables/{key}',
    summary: 'Delete an environment variable',
    tag: TAG,
    auth: 'user',
    params: keyParams,
    responses: { 204: { description: 'No Content' }, 404: { description: 'No such variable' } },
    handler: async ({ auth, params }) => {
      if (!(await deleteVariable(db, auth.accountId, params.key))) throw notFound('Variable', params.key);
    },
  });
}
