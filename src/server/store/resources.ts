import type { Db } from './db.js';
import { iso, isoOrNull, jsonParam, toNumber } from './rows.js';

/** Kinds of documents kept in the generic `resources` table. */
export type ResourceKind =
  | 'alert-channel'
  | 'maintenance-window'
  | 'status-page'
  | 'status-page-service'
  | 'status-page-subscription'
  | 'check-trigger'
  | 'group-trigger'
  | 'heartbeat-token'
  | 'heartbeat-event';

export interface StoredResource<T> {
  id: string;
  document: T;
  created_at: string;
  updated_at: string | null;
}

interface Row {
  id: string;
  document: unknown;
  created_at: unknown;
  updated_at: unknown;
}

function fromRow<T>(row: Row): StoredResource<T> {
  return {
    id: row.id,
    document: row.document as T,
    created_at: iso(row.created_at),
    updated_at: isoOrNull(row.updated_at),
  };
}

/** The next integer id of a numbered resource (alert channels, maintenance windows, triggers). */
export async function nextResourceNumber(db: Db): Promise<number> {
  const [row] = await db.query<{ n: unknown }>("SELECT nextval('resource_numbers') AS n");
  return toNumber(row?.n);
}

/** One account's documents of one kind, by id: the whole life cycle of a resource without a table of its own. */
export class ResourceStore<T> {
  constructor(
    private readonly db: Db,
    private readonly kind: ResourceKind,
  ) {}

  async create(accountId: string, id: string, document: T): Promise<StoredResource<T>> {
    const [row] = await this.db.query<Row>(
      `INSERT INTO resources (account_id, kind, id, document) VALUES ($1, $2, $3, $4::jsonb)
       RETURNING id, document, created_at, updated_at`,
      [accountId, this.kind, id, jsonParam(document)],
    );
    return fromRow<T>(row as Row);
  }

  async get(accountId: string, id: string): Promise<StoredResource<T> | null> {
    const [row] = await this.db.query<Row>(
      'SELECT id, document, created_at, updated_at FROM resources WHERE account_id = $1 AND kind = $2 AND id = $3',
      [accountId, this.kind, id],
    );
    return row ? fromRow<T>(row) : null;
  }

  /** Oldest first; `where` filters on the document with `document @> where`. */
  async list(accountId: string, where?: Partial<T>): Promise<StoredResource<T>[]> {
    const rows = await this.db.query<Row>(
      `SELECT id, document, created_at, updated_at FROM resources
        WHERE account_id = $1 AND kind = $2 AND ($3::jsonb IS NULL OR document @> $3::jsonb)
        ORDER BY created_at, id`,
      [accountId, this.kind, where ? jsonParam(where) : null],
    );
    return rows.map((row) => fromRow<T>(row));
  }

  async update(accountId: string, id: string, document: T): Promise<StoredResource<T> | null> {
    const [row] = await this.db.query<Row>(
      `UPDATE resources SET document = $4::jsonb, updated_at = now()
        WHERE account_id = $1 AND kind = $2 AND id = $3
        RETURNING id, document, created_at, updated_at`,
      [accountId, this.kind, id, jsonParam(document)],
    );
    return row ? fromRow<T>(row) : null;
  }

  /** True when it existed. */
  async delete(accountId: string, id: string): Promise<boolean> {
    const rows = await this.db.query(
      'DELETE FROM resources WHERE account_id = $1 AND kind = $2 AND id = $3 RETURNING id',
      [accountId, this.kind, id],
    );
    return rows.length > 0;
  }

  /** Deletes every document of this kind whose document contains `where`. */
  async deleteWhere(accountId: string, where: Partial<T>): Promise<void> {
    await this.db.query(
      'DELETE FROM resources WHERE account_id = $1 AND kind = $2 AND document @> $3::jsonb',
      [accountId, this.kind, jsonParam(where)],
    );
  }
}

/** A document found by kind and id alone, with its account: for token routes that run before authentication. */
export async function findResourceAnyAccount<T>(
  db: Db,
  kind: ResourceKind,
  id: string,
): Promise<{ accountId: string; document: T } | null> {
  const [row] = await db.query<{ account_id: string; document: T }>(
    'SELECT account_id, document FROM resources WHERE kind = $1 AND id = $2',
    [kind, id],
  );
  return row ? { accountId: row.account_id, document: row.document } : null;
}
