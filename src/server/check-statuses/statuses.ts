import { soonestExpiry } from '../alerts/session-outcome.js';
import { loadChecks } from '../sessions/checks.js';
import { effectiveCheck, isMuted } from '../sessions/effective.js';
import { UNRECORDED_SOURCES } from '../sessions/results-query.js';
import { isFailure } from '../sessions/status.js';
import { finalResultsOf, type ResultRow } from '../sessions/store.js';
import type { Db } from '../store/db.js';
import { iso } from '../store/rows.js';
import type { AlertState, CheckState, CheckStatus } from './status.js';

interface LastRow {
  check_id: string;
  group_id: number | string | null;
  created_at: Date;
  updated_at: Date | null;
  alert_state: AlertState | null;
  session_id: string | null;
  started_at: Date | null;
  stopped_at: Date | null;
}

/**
 * The status of every check of an account (or of the checks in `ids`), oldest check first. One index probe per
 * check finds its last finished recorded session; the FINAL results of those sessions are read in one statement.
 */
export async function checkStatuses(
  db: Db,
  accountId: string,
  ids?: readonly string[],
): Promise<CheckStatus[]> {
  const checks = await loadChecks(db, { accountId, ...(ids ? { ids } : {}) });
  if (checks.length === 0) return [];
  const rows = await db.query<LastRow>(
    `SELECT c.id AS check_id, c.group_id, c.created_at, c.updated_at, a.state AS alert_state,
            s.id AS session_id, s.started_at, s.stopped_at
       FROM checks c
       LEFT JOIN alert_states a ON a.account_id = c.account_id AND a.check_id = c.id
       LEFT JOIN LATERAL (
         SELECT id, started_at, stopped_at FROM check_sessions s
          WHERE s.account_id = c.account_id AND s.check_id = c.id AND s.status <> 'RUNNING'
            AND NOT (s.run_source = ANY($3::text[]))
          ORDER BY s.started_at DESC LIMIT 1) s ON true
      WHERE c.account_id = $1 AND c.id = ANY($2::text[])`,
    [accountId, checks.map((c) => c.id), UNRECORDED_SOURCES],
  );
  const lastOf = new Map(rows.map((row) => [row.check_id, row]));
  const finals = await finalResultsOf(
    db,
    rows.flatMap((r) =>
      r.session_id && r.started_at ? [{ id: r.session_id, started_at: r.started_at }] : [],
    ),
  );
  return checks.flatMap((stored) => {
    const last = lastOf.get(stored.id);
    if (!last) return [];
    const effective = effectiveCheck(stored);
    const results = last.session_id ? (finals.get(last.session_id) ?? []) : [];
    return [
      {
        ...runFacts(results),
        name: stored.name,
        checkId: stored.id,
        lastCheckSessionId: last.session_id,
        lastRunAt: last.session_id ? iso(last.stopped_at ?? last.started_at ?? new Date(0)) : null,
        state: stateOf(
          effective.scheduled,
          isMuted(stored),
          last.alert_state,
          results,
          last.session_id !== null,
        ),
        alertState: last.alert_state,
        checkType: stored.checkType,
        activated: effective.scheduled,
        muted: isMuted(stored),
        tags: effective.tags,
        groupId: last.group_id === null ? null : Number(last.group_id),
        locations: effective.locations,
        created_at: iso(last.created_at),
        updated_at: last.updated_at ? iso(last.updated_at) : null,
      },
    ];
  });
}

/** What the last run's FINAL results (one per location) say. */
function runFacts(results: readonly ResultRow[]) {
  const times = results.map((r) => r.record.responseTime).filter((t) => Number.isFinite(t));
  const hasFailures = results.some((r) => isFailure(r.status));
  return {
    hasFailures,
    hasErrors: results.some((r) => r.record.hasErrors),
    isDegraded: !hasFailures && results.some((r) => r.status === 'DEGRADED'),
    longestRun: times.length > 0 ? Math.max(...times) : null,
    shortestRun: times.length > 0 ? Math.min(...times) : null,
    lastRunLocation: results.at(-1)?.location ?? null,
    lastCheckRunId: results.at(-1)?.id ?? null,
    sslDaysRemaining: soonestExpiry(results)?.daysRemaining ?? null,
  };
}

function stateOf(
  scheduled: boolean,
  muted: boolean,
  alertState: AlertState | null,
  results: readonly ResultRow[],
  ran: boolean,
): CheckState {
  if (!scheduled) return 'PAUSED';
  if (muted) return 'MUTED';
  if (alertState) return alertState;
  if (!ran) return 'NO_DATA';
  const facts = runFacts(results);
  return facts.hasFailures ? 'FAILING' : facts.isDegraded ? 'DEGRADED' : 'PASSING';
}
