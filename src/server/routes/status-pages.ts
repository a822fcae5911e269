import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ValidationProblem } from '../../checks/index.js';
import { conflict, notFound, validationError } from '../common/errors.js';
import type { ServerContext } from '../context.js';
import { defineRoute } from '../http/route.js';
import { deleteIncidentsOfService } from '../status-pages/incidents.js';
import { pageAt, statusPages } from '../status-pages/pages.js';
import {
  type StatusPageDocument,
  type SubscriptionDocument,
  statusPageBodySchema,
  statusPageSchema,
  statusPageServiceBodySchema,
  statusPageServiceSchema,
  statusPageSubscriptionSchema,
  subscriptionBodySchema,
} from '../status-pages/schema.js';
import { statusPageServices } from '../status-pages/services.js';
import { subscribe, subscriptionStore } from '../status-pages/subscriptions.js';
import type { StoredResource } from '../store/resources.js';
import { stringIdParams } from './params.js';

const TAG = 'Status pages';
const pages = statusPages;
const services = statusPageServices;
const subscriptions = subscriptionStore;

const serviceParams = z.object({ serviceId: z.string().min(1) });
const pageParams = z.object({ statusPageId: z.string().min(1) });

/** Status pages, the services their cards show, and their e-mail subscriptions. */
export function registerStatusPageRoutes(app: FastifyInstance, { db, runs }: ServerContext): void {
  const serviceResponse = (accountId: string, s: StoredResource<{ name: string }>) => ({
    id: s.id,
    name: s.document.name,
    accountId,
    created_at: s.created_at,
    updated_at: s.updated_at,
  });

  const pageResponse = async (accountId: string, page: StoredResource<StatusPageDocument>) => {
    const names = new Map((await services(db).list(accountId)).map((s) => [s.id, s.document.name]));
    return {
      id: page.id,
      name: page.document.name,
      url: page.document.url,
      customDomain: page.document.customDomain,
      // A deleted service leaves the cards that showed it.
      cards: page.document.cards.map((card) => ({
        name: card.name,
        services: card.services.flatMap((s) =>
          names.has(s.id) ? [{ id: s.id, name: names.get(s.id) as string }] : [],
        ),
      })),
      created_at: page.created_at,
      updated_at: page.updated_at,
    };
  };

  defineRoute(app, {
    method: 'POST',
    path: '/v1/status-pages/services',
    summary: 'Create a status-page service',
    tag: TAG,
    auth: 'user',
    body: statusPageServiceBodySchema,
    responses: { 201: { description: 'Created', schema: statusPageServiceSchema } },
    handler: async ({ auth, body }) =>
      serviceResponse(auth.accountId, await services(db).create(auth.accountId, randomUUID(), body)),
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/status-pages/services',
    summary: 'List status-page services',
    tag: TAG,
    auth: 'user',
    responses: { 200: { description: 'Successful', schema: z.array(statusPageServiceSchema) } },
    handler: async ({ auth }) =>
      (await services(db).list(auth.accountId)).map((s) => serviceResponse(auth.accountId, s)),
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/status-pages/services/{serviceId}',
    summary: 'Get a status-page service',
    tag: TAG,
    auth: 'user',
    params: serviceParams,
    responses: {
      200: { description: 'Successful', schema: statusPageServiceSchema },
      404: { description: 'No such service' },
    },
    handler: async ({ auth, params }) => {
      const service = await services(db).get(auth.accountId, params.serviceId);
      if (!service) throw notFound('Status-page service', params.serviceId);
      return serviceResponse(auth.accountId, service);
    },
  });

  defineRoute(app, {
    method: 'PUT',
    path: '/v1/status-pages/services/{serviceId}',
    summary: 'Rename a status-page service',
    tag: TAG,
    auth: 'user',
    params: serviceParams,
    body: statusPageServiceBodySchema,
    responses: {
      200: { description: 'Successful', schema: statusPageServiceSchema },
      404: { description: 'No such service' },
    },
    handler: async ({ auth, params, body }) => {
      const service = await services(db).update(auth.accountId, params.serviceId, body);
      if (!service) throw notFound('Status-page service', params.serviceId);
      return serviceResponse(auth.accountId, service);
    },
  });

  defineRoute(app, {
    method: 'DELETE',
    path: '/v1/status-pages/services/{serviceId}',
    summary: 'Delete a status-page service',
    tag: TAG,
    auth: 'user',
    params: serviceParams,
    responses: { 204: { description: 'No Content' }, 404: { description: 'No such service' } },
    handler: async ({ auth, params }) => {
      await db.transaction(async (tx) => {
        if (!(await services(tx).delete(auth.accountId, params.serviceId))) {
          throw notFound('Status-page service', params.serviceId);
        }
        await deleteIncidentsOfService(tx, auth.accountId, params.serviceId);
      });
    },
  });

  defineRoute(app, {
    method: 'POST',
    path: '/v1/status-pages',
    summary: 'Create a status page',
    tag: TAG,
    auth: 'user',
    body: statusPageBodySchema,
    responses: { 201: { description: 'Created', schema: statusPageSchema } },
    handler: async ({ auth, body }) => {
      const known = new Set((await services(db).list(auth.accountId)).map((s) => s.id));
      const problems: ValidationProblem[] = [];
      body.cards.forEach((card, c) => {
        card.services.forEach((s, i) => {
          if (!known.has(s.id)) {
            problems.push({
              path: `cards[${c}].services[${i}].id`,
              message: `service ${s.id} does not exist`,
            });
          }
        });
      });
      if (problems.length > 0) throw validationError('body', problems);
      // Its public address: /status/{url}, and its custom domain, are one page's on the whole server.
      if (await pageAt(db, { url: body.url }))
        throw conflict(`A status page is served at /status/${body.url} already`);
      if (body.customDomain && (await pageAt(db, { domain: body.customDomain }))) {
        throw conflict(`A status page is served on ${body.customDomain} already`);
      }
      return pageResponse(auth.accountId, await pages(db).create(auth.accountId, randomUUID(), body));
    },
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/status-pages',
    summary: 'List status pages',
    tag: TAG,
    auth: 'user',
    responses: { 200: { description: 'Successful', schema: z.array(statusPageSchema) } },
    handler: async ({ auth }) =>
      Promise.all((await pages(db).list(auth.accountId)).map((p) => pageResponse(auth.accountId, p))),
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/status-pages/{id}',
    summary: 'Get a status page',
    tag: TAG,
    auth: 'user',
    params: stringIdParams,
    responses: {
      200: { description: 'Successful', schema: statusPageSchema },
      404: { description: 'No such status page' },
    },
    handler: async ({ auth, params }) => {
      const page = await pages(db).get(auth.accountId, params.id);
      if (!page) throw notFound('Status page', params.id);
      return pageResponse(auth.accountId, page);
    },
  });

  defineRoute(app, {
    method: 'DELETE',
    path: '/v1/status-pages/{id}',
    summary: 'Delete a status page and its subscriptions',
    tag: TAG,
    auth: 'user',
    params: stringIdParams,
    responses: { 204: { description: 'No Content' }, 404: { description: 'No such status page' } },
    handler: async ({ auth, params }) => {
      if (!(await pages(db).delete(auth.accountId, params.id))) throw notFound('Status page', params.id);
      await subscriptions(db).deleteWhere(auth.accountId, { statusPageId: params.id });
    },
  });

  const loadPage = async (accountId: string, id: string) => {
    const page = await pages(db).get(accountId, id);
    if (!page) throw notFound('Status page', id);
    return page;
  };
  const subscriptionResponse = (s: StoredResource<SubscriptionDocument>) => ({
    id: s.id,
    type: s.document.type,
    address: s.document.address,
    status: s.document.status,
    created_at: s.created_at,
    updated_at: s.updated_at ?? s.created_at,
  });

  defineRoute(app, {
    method: 'POST',
    path: '/v1/status-pages/{statusPageId}/subscriptions',
    summary: 'Subscribe an e-mail address to a status page: PENDING, and a verification mail is sent',
    tag: TAG,
    auth: 'user',
    params: pageParams,
    body: subscriptionBodySchema,
    responses: {
      201: { description: 'Created', schema: statusPageSubscriptionSchema },
      404: { description: 'No such status page' },
      409: { description: 'The address is subscribed already' },
    },
    handler: async ({ auth, params, body }) => {
      await loadPage(auth.accountId, params.statusPageId);
      const created = await db.transaction((tx) =>
        subscribe(tx, auth.accountId, params.statusPageId, body.address, runs.clock()),
      );
      if (!created) throw conflict(`${body.address} is subscribed to this status page already`);
      return subscriptionResponse(created);
    },
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/status-pages/{statusPageId}/subscriptions',
    summary: 'List the subscriptions of a status page',
    tag: TAG,
    auth: 'user',
    params: pageParams,
    responses: {
      200: { description: 'Successful', schema: z.array(statusPageSubscriptionSchema) },
      404: { description: 'No such status page' },
    },
    handler: async ({ auth, params }) => {
      await loadPage(auth.accountId, params.statusPageId);
      return (await subscriptions(db).list(auth.accountId, { statusPageId: params.statusPageId })).map(
        subscriptionResponse,
      );
    },
  });
}
