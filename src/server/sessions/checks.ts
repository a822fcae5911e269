import type { CheckGroup } from '../../checks/group.js';
import type { CheckType } from '../../checks/index.js';
import type { Db } from '../store/db.js';

/** A check as the run machinery reads it: its stored definition and, when it is in one, its group's. */
export interface StoredRunnableCheck {
  id: string;
  accountId: string;
  checkType: CheckType;
  name: string;
  activated: boolean;
  tags: string[];
  definition: Record<string, unknown>;
  group: Partial<CheckGroup> | null;
  /** The account's runtime: what the check runs with when neither it nor its group names one. */
  accountRuntimeId: string | null;
}

interface Row {
  id: string;
  account_id: string;
  check_type: CheckType;
  name: string;
  activated: boolean;
  tags: string[] | null;
  definition: Record<string, unknown>;
  group_definition: Partial<CheckGroup> | null;
  account_runtime_id: string | null;
}

export interface CheckSelection {
  /** One account, or every account (the scheduler). */
  accountId?: string;
  ids?: readonly string[];
  activatedOnly?: boolean;
}

/** Checks with their groups, oldest first. */
export async function loadChecks(db: Db, selection: CheckSelection): Promise<StoredRunnableCheck[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (selection.accountId !== undefined) {
    params.push(selection.accountId);
    where.push(`c.account_id = $${params.length}`);
  }
  if (selection.ids !== undefined) {
    params.push(selection.ids);
    where.push(`c.id = ANY($${params.length}::text[])`);
  }
  if (selection.activatedOnly) where.push('c.activated');
  const rows = await db.query<Row>(
    `SELECT c.id, c.account_id, c.check_type, c.name, c.activated, c.tags, c.definition,
            g.definition AS group_definition, a.runtime_id AS account_runtime_id
       FROM checks c LEFT JOIN check_groups g ON g.id = c.group_id AND g.account_id = c.account_id
       LEFT JOIN accounts a ON a.id = c.account_id
      ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY c.created_at, c.id`,
    params,
  );
  return rows.map((row) => ({
    id: row.id,
    accountId: row.account_id,
    checkType: row.check_type,
    name: row.name,
    activated: row.activated,
    tags: row.tags ?? [],
    definition: row.definition,
    group: row.group_definition,
    accountRuntimeId: row.account_runtime_id,
  }));
}
