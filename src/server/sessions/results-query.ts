import type { CheckResult } from '../../checks/index.js';
import type { Db } from '../store/db.js';
import { iso } from '../store/rows.js';

/** Run sources whose results stay out of a check's history and rollups (their sessions are still readable by id). */
export const UNRECORDED_SOURCES = ['TEST_NO_RECORD', 'TRIGGER_NO_RECORD'];

export interface ResultFilter {
  checkId: string;
  resultType: 'FINAL' | 'ATTEMPT' | 'ALL';
  location?: string | undefined;
  hasFailures?: boolean | undefined;
  /** UNIX seconds, on when the result was recorded. */
  from?: number | undefined;
  to?: number | undefined;
  page: number;
  limit: number;
}

/** A result as the check-results routes show it: the record, its id under Checkly's name, its session. */
export type ListedResult = CheckResult & { id: string; checkSessionId: string; created_at: string };

interface Row {
  record: CheckResult;
  session_id: string;
  created_at: Date;
}

function listed(row: Row): ListedResult {
  return {
    ...row.record,
    id: row.record.checkResultId,
    checkSessionId: row.session_id,
    created_at: iso(row.created_at),
  };
}

/** The results of a check, newest first. */
export async function listCheckResults(
  db: Db,
  accountId: string,
  filter: ResultFilter,
): Promise<ListedResult[]> {
  const params: unknown[] = [accountId, filter.checkId, UNRECORDED_SOURCES];
  const where = ['r.account_id = $1', 's.check_id = $2', 'NOT (s.run_source = ANY($3::text[]))'];
  const add = (condition: (n: number) => string, value: unknown) => {
    params.push(value);
    where.push(condition(params.length));
  };
  if (filter.resultType !== 'ALL') add((n) => `r.result_type = $${n}`, filter.resultType);
  if (filter.location) add((n) => `r.location = $${n}`, filter.location);
  if (filter.from !== undefined) add((n) => `r.created_at >= $${n}`, new Date(filter.from * 1000));
  if (filter.to !== undefined) add((n) => `r.created_at <= $${n}`, new Date(filter.to * 1000));
  if (filter.hasFailures !== undefined) {
    add((n) => `(r.status IN ('FAILED', 'TIMED_OUT')) = $${n}`, filter.hasFailures);
  }
  params.push(filter.limit, (filter.page - 1) * filter.limit);
  const rows = await db.query<Row>(
    `SELECT r.record, r.session_id, r.created_at FROM check_results r JOIN check_sessions s ON s.id = r.session_id
      WHERE ${where.join(' AND ')}
      ORDER BY r.created_at DESC, r.attempt DESC, r.id
      LIMIT $${params.length - 1} OFFSET $${params.length}`,
    params,
  );
  return rows.map(listed);
}

export async function getCheckResult(
  db: Db,
  accountId: string,
  checkId: string,
  resultId: string,
): Promise<ListedResult | null> {
  const [row] = await db.query<Row>(
    `SELECT r.record, r.session_id, r.created_at FROM check_results r JOIN check_sessions s ON s.id = r.session_id
      WHERE r.account_id = $1 AND s.check_id = $2 AND r.id = $3`,
    [accountId, checkId, resultId],
  );
  return row ? listed(row) : null;
}
