import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  BUNDLE_LIMIT_BYTES,
  BundleTooLargeError,
  bundleIdOf,
  deleteBundle,
  getBundle,
  NotGzipError,
  openBundle,
  saveBundle,
} from '../bundles/store.js';
import { ApiError, invalid, notFound } from '../common/errors.js';
import type { ServerContext } from '../context.js';
import { defineRoute } from '../http/route.js';
import { payloadSql } from '../queue/payloads.js';

const TAG = 'Code bundles';
const bundleSchema = z.object({
  id: z.string(),
  size: z.number().int().describe('Bytes'),
  sha256: z.string().describe('Hex SHA-256 of the archive'),
  created_at: z.string(),
});
const idParams = z.object({ id: z.uuid() });
/** The body types of an upload; every other route keeps JSON only. */
const ARCHIVE_TYPES = ['application/gzip', 'application/x-gzip', 'application/octet-stream'];

function tooLarge(): ApiError {
  return new ApiError(
    413,
    `A code bundle is at most ${BUNDLE_LIMIT_BYTES} bytes`,
    { limitBytes: BUNDLE_LIMIT_BYTES },
    { connection: 'close' },
  );
}

export function registerCodeBundleRoutes(app: FastifyInstance, context: ServerContext): void {
  const runs = context.runs;
  const { db } = runs;

  // The upload is a raw .tar.gz, streamed to disk: this context reads no body itself.
  app.register(async (uploads) => {
    uploads.removeAllContentTypeParsers();
    uploads.addContentTypeParser(ARCHIVE_TYPES, (_request, payload, done) => done(null, payload));
    defineRoute(uploads, {
      method: 'POST',
      path: '/v1/code-bundles',
      summary: `Upload a code bundle: the raw .tar.gz of a Playwright project (application/gzip or application/octet-stream, at most ${BUNDLE_LIMIT_BYTES / 1024 / 1024} MB); checks refer to it as codeBundlePath "bundle:<id>"`,
      tag: TAG,
      auth: 'user',
      responses: {
        201: { description: 'Created', schema: bundleSchema },
        400: { description: 'Not gzip data' },
        413: { description: 'Larger than 150 MB' },
        415: { description: 'Not application/gzip or application/octet-stream' },
      },
      handler: async ({ auth, request }) => {
        if (Number(request.headers['content-length']) > BUNDLE_LIMIT_BYTES) throw tooLarge();
        try {
          return await saveBundle(
            db,
            { dataDir: runs.dataDir, accountId: auth.accountId },
            (request.body as Readable | undefined) ?? Readable.from([]),
            runs.clock(),
          );
        } catch (error) {
          if (error instanceof BundleTooLargeError) throw tooLarge();
          if (error instanceof NotGzipError) throw invalid(error.message);
          throw error;
        }
      },
    });
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/code-bundles/{id}',
    summary: 'Retrieve the metadata of a code bundle',
    tag: TAG,
    auth: 'user',
    params: idParams,
    responses: {
      200: { description: 'Successful', schema: bundleSchema },
      404: { description: 'Not found' },
    },
    handler: async ({ auth, params }) => {
      const bundle = await getBundle(db, auth.accountId, params.id);
      if (!bundle) throw notFound('Code bundle', params.id);
      return bundle;
    },
  });

  defineRoute(app, {
    method: 'DELETE',
    path: '/v1/code-bundles/{id}',
    summary: 'Delete a code bundle (runs already queued with it fail to fetch it)',
    tag: TAG,
    auth: 'user',
    params: idParams,
    responses: { 204: { description: 'Deleted' }, 404: { description: 'Not found' } },
    handler: async ({ auth, params }) => {
      if (!(await deleteBundle(db, runs.dataDir, auth.accountId, params.id))) {
        throw notFound('Code bundle', params.id);
      }
    },
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/agent/runs/{runId}/bundle',
    summary:
      'Download the code bundle of a run leased to this location (the agent fetches it before running)',
    tag: 'Agents',
    auth: 'location',
    params: z.object({ runId: z.string().min(1).max(100) }),
    responses: { 200: { description: 'The .tar.gz' }, 404: { description: 'Unknown run or no bundle' } },
    handler: async ({ auth, params, reply }) => {
      const [run] = await db.query<{ payload: { check?: Record<string, unknown> } }>(
        `SELECT ${payloadSql('runs')} AS payload FROM runs
          WHERE id = $1 AND account_id = $2 AND location = $3 AND status = 'leased'`,
        [params.runId, auth.accountId, auth.locationSlug],
      );
      const bundleId = bundleIdOf(run?.payload.check?.codeBundlePath);
      const bundle = bundleId ? await openBundle(db, runs.dataDir, auth.accountId, bundleId) : null;
      if (!bundle) throw notFound('Bundle of run', params.runId);
      return reply
        .type('application/gzip')
        .header('content-length', bundle.size)
        .header('cache-control', 'no-store')
        .send(bundle.stream);
    },
  });
}
