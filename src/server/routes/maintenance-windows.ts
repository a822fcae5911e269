import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { problemsOf } from '../../checks/index.js';
import { notFound, validationError } from '../common/errors.js';
import { mergeUpdate } from '../common/merge.js';
import type { ServerContext } from '../context.js';
import { defineRoute } from '../http/route.js';
import { maintenanceStore } from '../maintenance/active.js';
import { maintenanceOf, maintenancesFrom } from '../maintenance/occurrences.js';
import {
  type MaintenanceWindowDocument,
  maintenanceSchema,
  maintenanceWindowResponseSchema,
  maintenanceWindowSchema,
  windowDocumentOf,
} from '../maintenance/schema.js';
import { insertMaintenanceUpdate, MAINTENANCE_STATUSES, updatesOf } from '../maintenance/updates.js';
import { enqueueMaintenanceMails } from '../status-pages/subscriptions.js';
import { nextResourceNumber, type StoredResource } from '../store/resources.js';
import { integerId, integerIdParams } from './params.js';

const TAG = 'Maintenance windows';
const store = maintenanceStore;

function windowResponse(stored: StoredResource<MaintenanceWindowDocument>) {
  return {
    id: Number(stored.id),
    ...stored.document,
    // Windows stored before these settings existed do both.
    pauseRuns: stored.document.pauseRuns ?? true,
    silenceAlerts: stored.document.silenceAlerts ?? true,
    created_at: stored.created_at,
    updated_at: stored.updated_at,
  };
}

/** Maintenance windows and their maintenances: each occurrence of a window is one maintenance, numbered from 0. */
export function registerMaintenanceWindowRoutes(app: FastifyInstance, { db, runs }: ServerContext): void {
  const load = async (accountId: string, id: number) => {
    const stored = await store(db).get(accountId, String(id));
    if (!stored) throw notFound('Maintenance window', id);
    return stored;
  };

  defineRoute(app, {
    method: 'POST',
    path: '/v1/maintenance-windows',
    summary: 'Create a maintenance window',
    tag: TAG,
    auth: 'user',
    body: maintenanceWindowSchema,
    responses: { 201: { description: 'Created', schema: maintenanceWindowResponseSchema } },
    handler: async ({ auth, body }) => {
      const id = await nextResourceNumber(db);
      return windowResponse(await store(db).create(auth.accountId, String(id), windowDocumentOf(body)));
    },
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/maintenance-windows',
    summary: 'List maintenance windows, oldest first',
    tag: TAG,
    auth: 'user',
    responses: { 200: { description: 'Successful', schema: z.array(maintenanceWindowResponseSchema) } },
    handler: async ({ auth }) => (await store(db).list(auth.accountId)).map(windowResponse),
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/maintenance-windows/{id}',
    summary: 'Get a maintenance window',
    tag: TAG,
    auth: 'user',
    params: integerIdParams,
    responses: {
      200: { description: 'Successful', schema: maintenanceWindowResponseSchema },
      404: { description: 'No such maintenance window' },
    },
    handler: async ({ auth, params }) => windowResponse(await load(auth.accountId, params.id)),
  });

  defineRoute(app, {
    method: 'PUT',
    path: '/v1/maintenance-windows/{id}',
    summary: 'Update a maintenance window (fields given replace the stored ones)',
    tag: TAG,
    auth: 'user',
    params: integerIdParams,
    body: z.strictObject(maintenanceWindowSchema.shape).partial(),
    responses: {
      200: { description: 'Successful', schema: maintenanceWindowResponseSchema },
      404: { description: 'No such maintenance window' },
    },
    handler: async ({ auth, params, request }) => {
      const stored = await load(auth.accountId, params.id);
      const parsed = maintenanceWindowSchema.safeParse(
        mergeUpdate(stored.document, request.body as Record<string, unknown>),
      );
      if (!parsed.success) throw validationError('body', problemsOf(parsed.error));
      const updated = await store(db).update(auth.accountId, stored.id, windowDocumentOf(parsed.data));
      if (!updated) throw notFound('Maintenance window', params.id);
      return windowResponse(updated);
    },
  });

  defineRoute(app, {
    method: 'DELETE',
    path: '/v1/maintenance-windows/{id}',
    summary: 'Delete a maintenance window',
    tag: TAG,
    auth: 'user',
    params: integerIdParams,
    responses: { 204: { description: 'No Content' }, 404: { description: 'No such maintenance window' } },
    handler: async ({ auth, params }) => {
      if (!(await store(db).delete(auth.accountId, String(params.id)))) {
        throw notFound('Maintenance window', params.id);
      }
    },
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/maintenance-windows/{id}/maintenances',
    summary: 'List the maintenances (occurrences) of a window that end after `from`',
    tag: TAG,
    auth: 'user',
    params: integerIdParams,
    query: z.object({
      from: z.iso.datetime({ offset: true }).optional().describe('ISO date-time; default now'),
      limit: z.coerce.number().int().min(1).max(100).default(10),
    }),
    responses: {
      200: { description: 'Successful', schema: z.array(maintenanceSchema) },
      404: { description: 'No such maintenance window' },
    },
    handler: async ({ auth, params, query }) =>
      maintenancesFrom(
        await load(auth.accountId, params.id),
        query.from ? new Date(query.from) : new Date(),
        query.limit,
        runs.clock(),
        await updatesOf(db, auth.accountId, [params.id]),
      ),
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/maintenance-windows/{id}/maintenances/{maintenanceId}',
    summary: 'Get one maintenance of a window: occurrence number maintenanceId, 0 being the first',
    tag: TAG,
    auth: 'user',
    params: z.object({ id: integerId, maintenanceId: z.string().min(1) }),
    responses: {
      200: { description: 'Successful', schema: maintenanceSchema },
      404: { description: 'No such maintenance window or maintenance' },
    },
    handler: async ({ auth, params }) => {
      const window = await load(auth.accountId, params.id);
      const updates = await updatesOf(db, auth.accountId, [params.id]);
      const maintenance = maintenanceOf(
        window,
        occurrenceNumber(params.maintenanceId),
        runs.clock(),
        updates,
      );
      if (!maintenance) throw notFound('Maintenance', params.maintenanceId);
      return maintenance;
    },
  });

  defineRoute(app, {
    method: 'POST',
    path: '/v1/maintenance-windows/{id}/maintenances/{maintenanceId}/updates',
    summary:
      'Post an update to a maintenance (its text, a status, notifySubscribers): shown on the status pages over its checks',
    tag: TAG,
    auth: 'user',
    params: z.object({ id: integerId, maintenanceId: z.string().min(1) }),
    body: z.strictObject({
      status: z.enum(MAINTENANCE_STATUSES).optional(),
      description: z.string().trim().min(1).max(10_000),
      notifySubscribers: z.boolean().default(false),
    }),
    responses: {
      201: { description: 'Created', schema: maintenanceSchema },
      404: { description: 'No such maintenance window or maintenance' },
    },
    handler: async ({ auth, params, body }) => {
      const window = await load(auth.accountId, params.id);
      const now = runs.clock();
      const current = maintenanceOf(window, occurrenceNumber(params.maintenanceId), now);
      if (!current) throw notFound('Maintenance', params.maintenanceId);
      await db.transaction(async (tx) => {
        const at = { windowId: params.id, maintenanceId: current.id, currentStatus: current.status };
        const updateId = await insertMaintenanceUpdate(tx, auth.accountId, at, body, now);
        if (body.notifySubscribers) {
          await enqueueMaintenanceMails(tx, auth.accountId, { tags: window.document.tags, updateId }, now);
        }
      });
      const updates = await updatesOf(db, auth.accountId, [params.id]);
      return maintenanceOf(window, Number(current.id), now, updates);
    },
  });
}

/** A maintenance's id is its occurrence number; anything else names none. */
function occurrenceNumber(maintenanceId: string): number {
  return /^\d{1,9}$/.test(maintenanceId) ? Number(maintenanceId) : -1;
}
