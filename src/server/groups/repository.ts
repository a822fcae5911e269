import type { CheckGroup } from '../../checks/group.js';
import type { Db } from '../store/db.js';
import { iso, isoOrNull, jsonParam, toNumber } from '../store/rows.js';

/** A group's settings as validated by the check-group schema, without its id and times. */
export type GroupDefinition = Omit<CheckGroup, 'id' | 'created_at' | 'updated_at'>;

export interface StoredGroup {
  id: number;
  definition: GroupDefinition;
  created_at: string;
  updated_at: string | null;
}

interface Row {
  id: unknown;
  definition: GroupDefinition;
  created_at: unknown;
  updated_at: unknown;
}

const COLUMNS = 'id, definition, created_at, updated_at';

function fromRow(row: Row): StoredGroup {
  return {
    id: toNumber(row.id),
    definition: row.definition,
    created_at: iso(row.created_at),
    updated_at: isoOrNull(row.updated_at),
  };
}

export async function insertGroup(
  db: Db,
  accountId: string,
  definition: GroupDefinition,
): Promise<StoredGroup> {
  const [row] = await db.query<Row>(
    `INSERT INTO check_groups (account_id, name, definition) VALUES ($1, $2, $3::jsonb) RETURNING ${COLUMNS}`,
    [accountId, definition.name, jsonParam(definition)],
  );
  return fromRow(row as Row);
}

export async function getGroup(
  db: Db,
  accountId: string,
  id: number,
  lock = false,
): Promise<StoredGroup | null> {
  const [row] = await db.query<Row>(
    `SELECT ${COLUMNS} FROM check_groups WHERE account_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
    [accountId, id],
  );
  return row ? fromRow(row) : null;
}

export async function listGroups(
  db: Db,
  accountId: string,
  page: { page: number; limit: number },
): Promise<StoredGroup[]> {
  const rows = await db.query<Row>(
    `SELECT ${COLUMNS} FROM check_groups WHERE account_id = $1 ORDER BY id LIMIT $2 OFFSET $3`,
    [accountId, page.limit, (page.page - 1) * page.limit],
  );
  return rows.map(fromRow);
}

export async function updateGroup(
  db: Db,
  accountId: string,
  id: number,
  definition: GroupDefinition,
): Promise<StoredGroup> {
  const [row] = await db.query<Row>(
    `UPDATE check_groups SET name = $3, definition = $4::jsonb, updated_at = now()
      WHERE account_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [accountId, id, definition.name, jsonParam(definition)],
  );
  return fromRow(row as Row);
}

export async function deleteGroupRow(db: Db, accountId: string, id: number): Promise<boolean> {
  const rows = await db.query('DELETE FROM check_groups WHERE account_id = $1 AND id = $2 RETURNING id', [
    accountId,
    id,
  ]);
  return rows.length > 0;
}
