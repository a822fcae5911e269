import type { Db } from '../store/db.js';
import { ResourceStore, type StoredResource } from '../store/resources.js';
import type { StatusPageDocument } from './schema.js';

export const statusPages = (db: Db) => new ResourceStore<StatusPageDocument>(db, 'status-page');

export interface PublicPageRef {
  accountId: string;
  page: StoredResource<StatusPageDocument>;
}

/** The page served at `/status/{url}`, or on its custom domain; null when none is. Both are unique server-wide. */
export async function pageAt(
  db: Db,
  where: { url: string } | { domain: string },
): Promise<PublicPageRef | null> {
  const [row] = await db.query<{
    account_id: string;
    id: string;
    document: StatusPageDocument;
    created_at: Date;
    updated_at: Date | null;
  }>(
    `SELECT account_id, id, document, created_at, updated_at FROM resources
      WHERE kind = 'status-page' AND ${'url' in where ? "document->>'url'" : "lower(document->>'customDomain')"} = $1
      ORDER BY created_at LIMIT 1`,
    ['url' in where ? where.url : where.domain.toLowerCase()],
  );
  if (!row) return null;
  return {
    accountId: row.account_id,
    page: {
      id: row.id,
      document: row.document,
      created_at: new Date(row.created_at).toISOString(),
      updated_at: row.updated_at ? new Date(row.updated_at).toISOString() : null,
    },
  };
}

/** Every custom domain a page is served on, lower case. */
export async function customDomains(db: Db): Promise<Set<string>> {
  const rows = await db.query<{ domain: string }>(
    `SELECT lower(document->>'customDomain') AS domain FROM resources
      WHERE kind = 'status-page' AND document->>'customDomain' IS NOT NULL`,
  );
  return new Set(rows.map((r) => r.domain));
}
