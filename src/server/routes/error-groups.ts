import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { notFound } from '../common/errors.js';
import type { ServerContext } from '../context.js';
import { defineRoute } from '../http/route.js';
import type { Db } from '../store/db.js';
import { iso } from '../store/rows.js';
import { paginationFields, stringIdParams } from './params.js';

const TAG = 'Error groups';

/** The spec's Error group. The rows are written when results arrive (see the sessions and gateway code). */
const errorGroupSchema = z.object({
  id: z.string(),
  checkId: z.string(),
  errorHash: z.string(),
  rawErrorMessage: z.string().nullable(),
  cleanedErrorMessage: z.string(),
  firstSeen: z.string(),
  lastSeen: z.string(),
  archivedUntilNextEvent: z.boolean(),
});

interface Row {
  id: string;
  check_id: string;
  error_hash: string;
  raw_error_message: string | null;
  cleaned_error_message: string;
  first_seen: unknown;
  last_seen: unknown;
  archived_until_next_event: boolean;
}

const COLUMNS =
  'id, check_id, error_hash, raw_error_message, cleaned_error_message, first_seen, last_seen, archived_until_next_event';

function errorGroupOf(row: Row): z.infer<typeof errorGroupSchema> {
  return {
    id: row.id,
    checkId: row.check_id,
    errorHash: row.error_hash,
    rawErrorMessage: row.raw_error_message,
    cleanedErrorMessage: row.cleaned_error_message,
    firstSeen: iso(row.first_seen),
    lastSeen: iso(row.last_seen),
    archivedUntilNextEvent: row.archived_until_next_event,
  };
}

async function listErrorGroups(
  db: Db,
  accountId: string,
  filter: { checkId?: string; page: number; limit: number },
): Promise<z.infer<typeof errorGroupSchema>[]> {
  const rows = await db.query<Row>(
    `SELECT ${COLUMNS} FROM error_groups WHERE account_id = $1 AND ($2::text IS NULL OR check_id = $2)
      ORDER BY last_seen DESC, id LIMIT $3 OFFSET $4`,
    [accountId, filter.checkId ?? null, filter.limit, (filter.page - 1) * filter.limit],
  );
  return rows.map(errorGroupOf);
}

/** Reading error groups: the distinct errors of failed results, newest first. */
export function registerErrorGroupRoutes(app: FastifyInstance, { db }: ServerContext): void {
  defineRoute(app, {
    method: 'GET',
    path: '/v1/error-groups',
    summary: 'List error groups, most recently seen first',
    tag: TAG,
    auth: 'user',
    query: z.object({
      checkId: z.string().min(1).optional().describe('Only this check’s'),
      ...paginationFields,
    }),
    responses: { 200: { description: 'Successful', schema: z.array(errorGroupSchema) } },
    handler: async ({ auth, query }) => listErrorGroups(db, auth.accountId, query),
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/checks/{checkId}/error-groups',
    summary: 'List the error groups of a check, most recently seen first',
    tag: TAG,
    auth: 'user',
    params: z.object({ checkId: z.string().min(1) }),
    query: z.object(paginationFields),
    responses: { 200: { description: 'Successful', schema: z.array(errorGroupSchema) } },
    handler: async ({ auth, params, query }) =>
      listErrorGroups(db, auth.accountId, { checkId: params.checkId, ...query }),
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/error-groups/{id}',
    summary: 'Get an error group',
    tag: TAG,
    auth: 'user',
    params: stringIdParams,
    responses: {
      200: { description: 'Successful', schema: errorGroupSchema },
      404: { description: 'No such error group' },
    },
    handler: async ({ auth, params }) => {
      const [row] = await db.query<Row>(
        `SELECT ${COLUMNS} FROM error_groups WHERE account_id = $1 AND id = $2`,
        [auth.accountId, params.id],
      );
      if (!row) throw notFound('Error group', params.id);
      return errorGroupOf(row);
    },
  });

  defineRoute(app, {
    method: 'PATCH',
    path: '/v1/error-groups/{id}',
    summary: 'Archive an error group until it occurs again (or unarchive it)',
    tag: TAG,
    auth: 'user',
    params: stringIdParams,
    body: z.strictObject({ archivedUntilNextEvent: z.boolean() }),
    responses: {
      200: { description: 'Successful', schema: errorGroupSchema },
      404: { description: 'No such error group' },
    },
    handler: async ({ auth, params, body }) => {
      const [row] = await db.query<Row>(
        `UPDATE error_groups SET archived_until_next_event = $3 WHERE account_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
        [auth.accountId, params.id, body.archivedUntilNextEvent],
      );
      if (!row) throw notFound('Error group', params.id);
      return errorGroupOf(row);
    },
  });
}
