import type { Db } from './db.js';

/** Each user table's activity counts (`s`) beside what the planner was last told of it (`c.reltuples`). */
const TABLE_STATS = 'pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid';

/** Whether any table's statistics meet `condition`: one read of them, for a probe of the sweeps. */
export function anyTableWhere(condition: string): string {
  return `EXISTS (SELECT 1 FROM ${TABLE_STATS} WHERE (${condition}))`;
}

/** The tables (`schema.table`, quoted as needed) whose statistics meet `condition`, by name. */
export async function tablesWhere(db: Db, condition: string, params?: readonly unknown[]): Promise<string[]> {
  const rows = await db.query<{ name: string }>(
    `SELECT format('%I.%I', s.schemaname, s.relname) AS name FROM ${TABLE_STATS} WHERE (${condition})
      ORDER BY s.relname`,
    params,
  );
  return rows.map((r) => r.name);
}

/** How many rows the planner was last told `table` holds (ANALYZE and VACUUM keep it; no scan); 0 before either. */
export async function plannedRows(db: Db, table: string): Promise<number> {
  const rows = await db.query<{ n: number }>(
    `SELECT greatest(c.reltuples, 0)::float8 AS n FROM ${TABLE_STATS} WHERE s.relname = $1`,
    [table],
  );
  return Math.round(Number(rows[0]?.n ?? 0));
}
