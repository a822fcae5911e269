import type { Check, CheckType } from '../../checks/index.js';
import type { Db } from '../store/db.js';
import { iso, isoOrNull, jsonParam } from '../store/rows.js';

/** A check as stored: its validated definition (with id) and the times of the row. */
export interface StoredCheck {
  id: string;
  checkType: CheckType;
  definition: Check & { id: string };
  created_at: string;
  updated_at: string | null;
}

interface Row {
  id: string;
  check_type: CheckType;
  definition: Check & { id: string };
  created_at: unknown;
  updated_at: unknown;
}

const COLUMNS = 'id, check_type, definition, created_at, updated_at';

function fromRow(row: Row): StoredCheck {
  return {
    id: row.id,
    checkType: row.check_type,
    definition: row.definition,
    created_at: iso(row.created_at),
    updated_at: isoOrNull(row.updated_at),
  };
}

/** The columns kept in step with the definition, in the order of the INSERT/UPDATE parameters $3…$8. */
function columnValues(check: Check & { id: string }): unknown[] {
  return [check.checkType, check.name, check.activated, check.tags, check.groupId ?? null, jsonParam(check)];
}

export async function insertCheck(
  db: Db,
  accountId: string,
  check: Check & { id: string },
): Promise<StoredCheck> {
  const [row] = await db.query<Row>(
    `INSERT INTO checks (id, account_id, check_type, name, activated, tags, group_id, definition)
     VALUES ($1, $2, $3, $4, $5, $6::text[], $7, $8::jsonb) RETURNING ${COLUMNS}`,
    [check.id, accountId, ...columnValues(check)],
  );
  return fromRow(row as Row);
}

export async function updateCheck(
  db: Db,
  accountId: string,
  check: Check & { id: string },
): Promise<StoredCheck> {
  const [row] = await db.query<Row>(
    `UPDATE checks SET check_type = $3, name = $4, activated = $5, tags = $6::text[], group_id = $7,
            definition = $8::jsonb, updated_at = now()
      WHERE id = $1 AND account_id = $2 RETURNING ${COLUMNS}`,
    [check.id, accountId, ...columnValues(check)],
  );
  return fromRow(row as Row);
}

export async function getCheck(
  db: Db,
  accountId: string,
  id: string,
  lock = false,
): Promise<StoredCheck | null> {
  const [row] = await db.query<Row>(
    `SELECT ${COLUMNS} FROM checks WHERE id = $1 AND account_id = $2${lock ? ' FOR UPDATE' : ''}`,
    [id, accountId],
  );
  return row ? fromRow(row) : null;
}

export interface CheckFilters {
  checkType?: CheckType;
  /** Checks that carry every one of these tags. */
  tags?: string[];
  groupId?: number;
  activated?: boolean;
  /** Case-insensitive substring of the name. */
  name?: string;
  page: number;
  limit: number;
}

/** Oldest first, one page. */
export async function listChecks(db: Db, accountId: string, filters: CheckFilters): Promise<StoredCheck[]> {
  const rows = await db.query<Row>(
    `SELECT ${COLUMNS} FROM checks
      WHERE account_id = $1
        AND ($2::text IS NULL OR check_type = $2)
        AND ($3::text[] IS NULL OR tags @> $3::text[])
        AND ($4::bigint IS NULL OR group_id = $4)
        AND ($5::boolean IS NULL OR activated = $5)
        AND ($6::text IS NULL OR position(lower($6) in lower(name)) > 0)
      ORDER BY created_at, id
      LIMIT $7 OFFSET $8`,
    [
      accountId,
      filters.checkType ?? null,
      filters.tags?.length ? filters.tags : null,
      filters.groupId ?? null,
      filters.activated ?? null,
      filters.name ?? null,
      filters.limit,
      (filters.page - 1) * filters.limit,
    ],
  );
  return rows.map(fromRow);
}

export async function deleteCheckRow(db: Db, accountId: string, id: string): Promise<boolean> {
  const rows = await db.query('DELETE FROM checks WHERE id = $1 AND account_id = $2 RETURNING id', [
    id,
    accountId,
  ]);
  return rows.length > 0;
}

export async function checkIdsInGroup(db: Db, accountId: string, groupId: number): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    'SELECT id FROM checks WHERE account_id = $1 AND group_id = $2 ORDER BY created_at, id',
    [accountId, groupId],
  );
  return rows.map((r) => r.id);
}

/** The checks a group trigger runs: the group's activated checks that agents run (not heartbeats). */
export async function runnableCheckIdsInGroup(db: Db, accountId: string, groupId: number): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `SELECT id FROM checks WHERE account_id = $1 AND group_id = $2 AND activated AND check_type <> 'HEARTBEAT'
      ORDER BY created_at, id`,
    [accountId, groupId],
  );
  return rows.map((r) => r.id);
}
