import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  deleteClientCertificate,
  getClientCertificate,
  insertClientCertificate,
  listClientCertificates,
} from '../certificates/repository.js';
import { clientCertificateBodySchema, clientCertificateResponseSchema } from '../certificates/schema.js';
import { notFound } from '../common/errors.js';
import type { ServerContext } from '../context.js';
import { defineRoute } from '../http/route.js';
import { stringIdParams } from './params.js';

const TAG = 'Client certificates';

/** Client certificates for mutual TLS, picked by host when a check calls it. */
export function registerClientCertificateRoutes(app: FastifyInstance, { db }: ServerContext): void {
  defineRoute(app, {
    method: 'POST',
    path: '/v1/client-certificates',
    summary: 'Upload a client certificate with its private key',
    tag: TAG,
    auth: 'user',
    body: clientCertificateBodySchema,
    responses: { 201: { description: 'Created', schema: clientCertificateResponseSchema } },
    handler: async ({ auth, body }) => insertClientCertificate(db, auth.accountId, body),
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/client-certificates',
    summary: 'List client certificates (without keys)',
    tag: TAG,
    auth: 'user',
    responses: { 200: { description: 'Successful', schema: z.array(clientCertificateResponseSchema) } },
    handler: async ({ auth }) => listClientCertificates(db, auth.accountId),
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/client-certificates/{id}',
    summary: 'Get a client certificate (without its key)',
    tag: TAG,
    auth: 'user',
    params: stringIdParams,
    responses: {
      200: { description: 'Successful', schema: clientCertificateResponseSchema },
      404: { description: 'No such client certificate' },
    },
    handler: async ({ auth, params }) => {
      const certificate = await getClientCertificate(db, auth.accountId, params.id);
      if (!certificate) throw notFound('Client certificate', params.id);
      return certificate;
    },
  });

  defineRoute(app, {
    method: 'DELETE',
    path: '/v1/client-certificates/{id}',
    summary: 'Delete a client certificate',
    tag: TAG,
    auth: 'user',
    params: stringIdParams,
    responses: { 204: { description: 'No Content' }, 404: { description: 'No such client certificate' } },
    handler: async ({ auth, params }) => {
      if (!(await deleteClientCertificate(db, auth.accountId, params.id))) {
        throw notFound('Client certificate', params.id);
      }
    },
  });
}
