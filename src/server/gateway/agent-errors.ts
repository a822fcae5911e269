import type { ErrorReport } from '../../protocol/index.js';
import type { Db } from '../store/db.js';
import { iso, jsonParam } from '../store/rows.js';

/** Reports listed per location, newest first. */
export const AGENT_ERRORS_LISTED = 200;

export async function storeAgentError(
  db: Db,
  reporter: { accountId: string; privateLocationId: string; agentId: string | null },
  report: ErrorReport,
  now: Date,
): Promise<number> {
  const [row] = await db.query<{ id: number | string }>(
    `INSERT INTO agent_errors (account_id, private_location_id, agent_id, report, created_at)
     VALUES ($1, $2, $3, $4::jsonb, $5) RETURNING id`,
    [reporter.accountId, reporter.privateLocationId, reporter.agentId, jsonParam(report), now],
  );
  return Number(row?.id);
}

export interface AgentErrorRecord extends ErrorReport {
  id: number;
  agentId: string | null;
  receivedAt: string;
}

export async function listAgentErrors(db: Db, privateLocationId: string): Promise<AgentErrorRecord[]> {
  const rows = await db.query<{
    id: number | string;
    agent_id: string | null;
    report: ErrorReport;
    created_at: Date;
  }>(
    `SELECT id, agent_id, report, created_at FROM agent_errors WHERE private_location_id = $1
      ORDER BY created_at DESC, id DESC LIMIT $2`,
    [privateLocationId, AGENT_ERRORS_LISTED],
  );
  return rows.map((r) => ({
    ...r.report,
    id: Number(r.id),
    agentId: r.agent_id,
    receivedAt: iso(r.created_at),
  }));
}
