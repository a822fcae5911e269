import { DAY_MS, periodStart } from '../retention/periods.js';
import { loadChecks } from '../sessions/checks.js';
import { effectiveCheck } from '../sessions/effective.js';
import { feedingChecks } from '../status-pages/feeding.js';
import { dailyCounts, publicPageOf, uptimeOf } from '../status-pages/public/model.js';
import type { ServiceState } from '../status-pages/public/states.js';
import type { Db } from '../store/db.js';
import { findResourceAnyAccount } from '../store/resources.js';
import type { CheckBadgeState } from './badge.js';

/** Percent of runs that did not fail over the last `days` UTC days (today's closed hours included). */
async function uptimeOver(db: Db, accountId: string, checkIds: readonly string[], days: number, now: Date) {
  const from = new Date(periodStart(now, DAY_MS).getTime() - (days - 1) * DAY_MS);
  return uptimeOf(await dailyCounts(db, accountId, checkIds, from, now));
}

/** A check's badge facts by its id alone (badges are public, like Checkly's): null for an unknown check. */
export async function checkBadgeFacts(db: Db, checkId: string, days: number, now: Date) {
  const [row] = await db.query<{ account_id: string }>('SELECT account_id FROM checks WHERE id = $1', [
    checkId,
  ]);
  if (!row) return null;
  const [check] = await loadChecks(db, { accountId: row.account_id, ids: [checkId] });
  if (!check) return null;
  const [alert] = await db.query<{ state: CheckBadgeState }>(
    'SELECT state FROM alert_states WHERE account_id = $1 AND check_id = $2',
    [row.account_id, checkId],
  );
  const [session] = await db.query<{ status: string }>(
    `SELECT status FROM check_sessions WHERE account_id = $1 AND check_id = $2 AND status <> 'RUNNING'
      ORDER BY started_at DESC LIMIT 1`,
    [row.account_id, checkId],
  );
  const state: CheckBadgeState = !effectiveCheck(check).scheduled
    ? 'PAUSED'
    : (alert?.state ?? (session ? 'PASSING' : 'NONE'));
  return { name: check.name, state, uptime: await uptimeOver(db, row.account_id, [checkId], days, now) };
}

/** A status-page service's badge facts, as its public page shows them: null for an unknown service. */
export async function serviceBadgeFacts(
  db: Db,
  serviceId: string,
  days: number,
  now: Date,
): Promise<{ name: string; state: ServiceState; uptime: number | null } | null> {
  const service = await findResourceAnyAccount<{ name: string }>(db, 'status-page-service', serviceId);
  if (!service) return null;
  const { accountId } = service;
  const page = await publicPageOf(
    db,
    accountId,
    { name: '', url: '', customDomain: null, cards: [{ name: '', services: [{ id: serviceId }] }] },
    now,
  );
  const feeding =
    feedingChecks(await loadChecks(db, { accountId, activatedOnly: true })).get(serviceId) ?? [];
  return {
    name: service.document.name,
    state: page.state,
    uptime: await uptimeOver(
      db,
      accountId,
      feeding.map((c) => c.id),
      days,
      now,
    ),
  };
}
