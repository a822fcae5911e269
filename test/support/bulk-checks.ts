import { syncScheduleRows } from '../../src/server/checks/schedule-row.js';
import type { Db } from '../../src/server/store/db.js';

/**
 * Copies of one stored check, made in one statement (the API would take minutes for thousands), with their
 * schedule rows as the check service makes them; returns the ids of the check and its copies.
 */
export async function copiesOfCheck(
  db: Db,
  accountId: string,
  checkId: string,
  copies: number,
): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `INSERT INTO checks (id, account_id, check_type, name, activated, tags, group_id, definition)
     SELECT $2 || '-' || g, account_id, check_type, name, activated, tags, group_id,
            jsonb_set(definition, '{id}', to_jsonb($2 || '-' || g))
       FROM checks, generate_series(1, $1) g WHERE id = $2
     RETURNING id`,
    [copies, checkId],
  );
  const ids = [checkId, ...rows.map((r) => r.id)];
  await db.transaction((tx) => syncScheduleRows(tx, accountId, ids));
  return ids;
}
