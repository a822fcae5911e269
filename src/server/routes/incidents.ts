import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { notFound } from '../common/errors.js';
import type { ServerContext } from '../context.js';
import { defineRoute } from '../http/route.js';
import {
  incidentCreateBodySchema,
  incidentListQuerySchema,
  incidentProgressBodySchema,
  incidentSchema,
  incidentUpdateBodySchema,
} from '../status-pages/incident-schema.js';
import {
  createIncident,
  deleteIncident,
  editIncident,
  getIncident,
  listIncidents,
  progressIncident,
} from '../status-pages/incidents.js';
import { stringIdParams } from './params.js';

const TAG = 'Status pages';
const notFoundResponse = { 404: { description: 'No such incident' } };

/** Incidents of status-page services and their updates (docs/status-pages.md). */
export function registerIncidentRoutes(app: FastifyInstance, { db, runs }: ServerContext): void {
  defineRoute(app, {
    method: 'POST',
    path: '/v1/status-pages/incidents',
    summary: 'Open an incident on a status-page service; its description is its first update',
    tag: TAG,
    auth: 'user',
    body: incidentCreateBodySchema,
    responses: {
      201: { description: 'Created', schema: incidentSchema },
      400: { description: 'Invalid, or the service does not exist' },
    },
    handler: ({ auth, body }) =>
      db.transaction((tx) => createIncident(tx, auth.accountId, body, runs.clock())),
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/status-pages/incidents',
    summary: 'List incidents, newest first: of one service (serviceId), open or resolved ones (state)',
    tag: TAG,
    auth: 'user',
    query: incidentListQuerySchema,
    responses: { 200: { description: 'Successful', schema: z.array(incidentSchema) } },
    handler: ({ auth, query }) => listIncidents(db, auth.accountId, query),
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/status-pages/incidents/{id}',
    summary: 'Get an incident with its updates',
    tag: TAG,
    auth: 'user',
    params: stringIdParams,
    responses: { 200: { description: 'Successful', schema: incidentSchema }, ...notFoundResponse },
    handler: async ({ auth, params }) => {
      const incident = await getIncident(db, auth.accountId, params.id);
      if (!incident) throw notFound('Incident', params.id);
      return incident;
    },
  });

  defineRoute(app, {
    method: 'PUT',
    path: '/v1/status-pages/incidents/{id}',
    summary: 'Change an incident’s name, description or severity (its status moves with updates)',
    tag: TAG,
    auth: 'user',
    params: stringIdParams,
    body: incidentUpdateBodySchema,
    responses: { 200: { description: 'Successful', schema: incidentSchema }, ...notFoundResponse },
    handler: ({ auth, params, body }) =>
      db.transaction((tx) => editIncident(tx, auth.accountId, params.id, body, runs.clock())),
  });

  defineRoute(app, {
    method: 'POST',
    path: '/v1/status-pages/incidents/{id}/updates',
    summary:
      'Post an update to an incident: its text, and the status the incident moves to (RESOLVED ends it)',
    tag: TAG,
    auth: 'user',
    params: stringIdParams,
    body: incidentProgressBodySchema,
    responses: { 201: { description: 'Created', schema: incidentSchema }, ...notFoundResponse },
    handler: ({ auth, params, body }) =>
      db.transaction((tx) => progressIncident(tx, auth.accountId, params.id, body, runs.clock())),
  });

  defineRoute(app, {
    method: 'DELETE',
    path: '/v1/status-pages/incidents/{id}',
    summary: 'Delete an incident and its updates',
    tag: TAG,
    auth: 'user',
    params: stringIdParams,
    responses: { 204: { description: 'No Content' }, ...notFoundResponse },
    handler: async ({ auth, params }) => {
      if (!(await deleteIncident(db, auth.accountId, params.id))) throw notFound('Incident', params.id);
    },
  });
}
